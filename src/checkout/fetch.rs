//! Download of a commit's tarball from the GitHub API, streamed into the safe extractor.
//!
//! The installation token travels only in the `Authorization` header of the first request,
//! to the API host. GitHub answers 302 to codeload; a client that follows redirects itself
//! (reqwest's default policy) drops `Authorization` when host or port change, and a client
//! that does not is handled here: redirects are followed without any credential. Errors
//! never contain the token or a URL (codeload URLs carry their own short-lived token).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION, LOCATION, USER_AGENT};
use reqwest::{Client, Response, Url};
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::mpsc;

use super::error::CheckoutError;
use super::extract::{extract_tarball, CheckoutInfo};
use super::limits::ExtractLimits;

const MAX_REDIRECTS: usize = 5;
const CHUNKS_IN_FLIGHT: usize = 16;

/// Downloads `owner/repo` at commit `sha` and extracts it into `dest` (absent or empty).
/// On error `dest` is removed.
#[allow(clippy::too_many_arguments)]
pub async fn fetch_tarball(
    client: &Client,
    api_url: &str,
    owner: &str,
    repo: &str,
    sha: &str,
    token: &SecretString,
    dest: &Path,
    limits: ExtractLimits,
) -> Result<CheckoutInfo, CheckoutError> {
    let url = tarball_url(api_url, owner, repo, sha)?;
    let first = tarball_request(client, url.clone(), token)?
        .send()
        .await
        .map_err(network_error)?;
    let response = follow_redirects(client, first, url.scheme() == "https").await?;
    if !response.status().is_success() {
        return Err(refusal(response).await);
    }
    stream_into_extractor(response, dest.to_path_buf(), limits).await
}

/// Why GitHub did not send the tarball: a rate limit (as [`crate::github::retry::classify`]
/// reads GitHub's headers and message) or another status.
async fn refusal(response: Response) -> CheckoutError {
    use crate::github::retry::{classify, Answer, Outcome, Verdict};
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    // GitHub's error bodies are a short JSON message; a long body is not read.
    let short = response.content_length().is_some_and(|n| n <= 64 * 1024);
    let body = match short {
        true => response.text().await.unwrap_or_default(),
        false => String::new(),
    };
    let message = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["message"].as_str().map(str::to_string))
        .unwrap_or_default();
    let answer = Answer {
        status,
        retry_after: header("retry-after"),
        ratelimit_remaining: header("x-ratelimit-remaining"),
        ratelimit_reset: header("x-ratelimit-reset"),
        message: &message,
    };
    match classify(&Outcome::Answered(answer), std::time::SystemTime::now()) {
        Verdict::RateLimited { until } => CheckoutError::RateLimited { until },
        _ => CheckoutError::HttpStatus { status },
    }
}

/// Runs `fetch` (a [`fetch_tarball`]) again after each pause of `backoff` while it fails
/// transiently ([`CheckoutError::is_retryable`]: network trouble, 429, GitHub 5xx); a 403,
/// a 404 or a rejected archive fails at once. A failed fetch leaves no destination behind.
pub async fn with_retries<F, Fut>(
    backoff: &[std::time::Duration],
    mut fetch: F,
) -> Result<CheckoutInfo, CheckoutError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<CheckoutInfo, CheckoutError>>,
{
    let mut pauses = backoff.iter();
    loop {
        match fetch().await {
            Err(e) if e.is_retryable() => {
                let Some(pause) = pauses.next() else {
                    return Err(e);
                };
                tracing::warn!(error = %e, pause_ms = pause.as_millis() as u64,
                    "tarball download failed; trying again");
                tokio::time::sleep(*pause).await;
            }
            done => return done,
        }
    }
}

/// The API request for a tarball (GitHub answers with a redirect to the archive).
pub fn tarball_request(
    client: &Client,
    url: Url,
    token: &SecretString,
) -> Result<reqwest::RequestBuilder, CheckoutError> {
    let mut authorization = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
        .map_err(|_| CheckoutError::InvalidToken)?;
    authorization.set_sensitive(true);
    Ok(client
        .get(url)
        .header(AUTHORIZATION, authorization)
        .header(ACCEPT, "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .header(USER_AGENT, "tfgate"))
}

/// `{api}/repos/{owner}/{repo}/tarball/{sha}` after checking every part.
pub fn tarball_url(
    api_url: &str,
    owner: &str,
    repo: &str,
    sha: &str,
) -> Result<Url, CheckoutError> {
    if !is_commit_sha(sha) {
        return Err(CheckoutError::InvalidSha);
    }
    if !is_github_name(owner) {
        return Err(CheckoutError::InvalidRepoName { which: "owner" });
    }
    if !is_github_name(repo) {
        return Err(CheckoutError::InvalidRepoName { which: "name" });
    }
    let base = Url::parse(api_url).map_err(|_| CheckoutError::InvalidApiUrl)?;
    if !matches!(base.scheme(), "https" | "http") || base.cannot_be_a_base() {
        return Err(CheckoutError::InvalidApiUrl);
    }
    let text = format!(
        "{}/repos/{owner}/{repo}/tarball/{sha}",
        base.as_str().trim_end_matches('/')
    );
    Url::parse(&text).map_err(|_| CheckoutError::InvalidApiUrl)
}

/// Exactly 40 hexadecimal characters.
pub fn is_commit_sha(sha: &str) -> bool {
    sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A GitHub owner or repository name: 1–100 of `A-Z a-z 0-9 . _ -`, not `.` or `..`.
fn is_github_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Follows redirects the client did not follow itself, never sending a credential.
async fn follow_redirects(
    client: &Client,
    mut response: Response,
    require_https: bool,
) -> Result<Response, CheckoutError> {
    for _ in 0..MAX_REDIRECTS {
        check_scheme(response.url(), require_https)?;
        if !response.status().is_redirection() {
            return Ok(response);
        }
        let next = response
            .headers()
            .get(LOCATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|location| response.url().join(location).ok())
            .ok_or(CheckoutError::HttpStatus {
                status: response.status().as_u16(),
            })?;
        check_scheme(&next, require_https)?;
        response = client
            .get(next)
            .header(USER_AGENT, "tfgate")
            .send()
            .await
            .map_err(network_error)?;
    }
    check_scheme(response.url(), require_https)?;
    if response.status().is_redirection() {
        return Err(CheckoutError::TooManyRedirects);
    }
    Ok(response)
}

fn check_scheme(url: &Url, require_https: bool) -> Result<(), CheckoutError> {
    if require_https && url.scheme() != "https" {
        return Err(CheckoutError::InsecureRedirect);
    }
    Ok(())
}

fn network_error(err: reqwest::Error) -> CheckoutError {
    if err.is_redirect() {
        return CheckoutError::TooManyRedirects;
    }
    CheckoutError::Network(err.without_url())
}

/// Feeds the body chunk by chunk to the extractor on a blocking thread; memory stays bounded
/// by the channel size.
async fn stream_into_extractor(
    mut response: Response,
    dest: PathBuf,
    limits: ExtractLimits,
) -> Result<CheckoutInfo, CheckoutError> {
    let (sender, receiver) = mpsc::channel::<io::Result<Vec<u8>>>(CHUNKS_IN_FLIGHT);
    let extractor = tokio::task::spawn_blocking(move || {
        let reader = ChannelReader {
            receiver,
            chunk: Vec::new(),
            position: 0,
        };
        extract_tarball(reader, &dest, &limits)
    });

    let mut download_error = None;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if sender.send(Ok(Vec::from(chunk))).await.is_err() {
                    break; // the extractor stopped early; its result says why
                }
            }
            Ok(None) => break,
            Err(err) => {
                let _ = sender
                    .send(Err(io::Error::other("download interrupted")))
                    .await;
                download_error = Some(network_error(err));
                break;
            }
        }
    }
    drop(sender);

    let extracted = extractor.await.map_err(|_| CheckoutError::Internal)?;
    match (download_error, extracted) {
        (Some(err), Err(_)) => Err(err),
        (_, result) => result.map_err(CheckoutError::from),
    }
}

/// A blocking `Read` over chunks sent from the async side.
struct ChannelReader {
    receiver: mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    position: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.position == self.chunk.len() {
            match self.receiver.blocking_recv() {
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.position = 0;
                }
                Some(Err(err)) => return Err(err),
                None => return Ok(0),
            }
        }
        let available = &self.chunk[self.position..];
        let count = available.len().min(buf.len());
        buf[..count].copy_from_slice(&available[..count]);
        self.position += count;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn tarball_url_joins_api_base_and_parts() {
        let cases = [
            (
                "https://api.github.com",
                "https://api.github.com/repos/o/r/tarball/",
            ),
            (
                "https://api.github.com/",
                "https://api.github.com/repos/o/r/tarball/",
            ),
            (
                "https://ghe.example/api/v3",
                "https://ghe.example/api/v3/repos/o/r/tarball/",
            ),
            (
                "http://127.0.0.1:8080/",
                "http://127.0.0.1:8080/repos/o/r/tarball/",
            ),
        ];
        for (base, prefix) in cases {
            let url = tarball_url(base, "o", "r", SHA).unwrap();
            assert_eq!(url.as_str(), format!("{prefix}{SHA}"), "base {base}");
        }
    }

    #[test]
    fn tarball_url_rejects_bad_parts() {
        let cases: [(&str, &str, &str, &str, &str); 9] = [
            ("https://api.github.com", "o", "r", "abc", "commit sha"),
            ("https://api.github.com", "o", "r", &SHA[..39], "commit sha"),
            (
                "https://api.github.com",
                "o",
                "r",
                "g123456789abcdef0123456789abcdef01234567",
                "commit sha",
            ),
            ("https://api.github.com", "o/x", "r", SHA, "owner"),
            ("https://api.github.com", "..", "r", SHA, "owner"),
            ("https://api.github.com", "o", "", SHA, "name"),
            ("https://api.github.com", "o", "r?x=1", SHA, "name"),
            ("ftp://api.github.com", "o", "r", SHA, "URL"),
            ("not a url", "o", "r", SHA, "URL"),
        ];
        for (base, owner, repo, sha, expected) in cases {
            let err = tarball_url(base, owner, repo, sha).unwrap_err();
            assert!(
                err.to_string().contains(expected),
                "{base} {owner} {repo} {sha}: {err}"
            );
        }
    }

    #[test]
    fn channel_reader_concatenates_chunks_and_reports_errors() {
        let (sender, receiver) = mpsc::channel(4);
        sender.try_send(Ok(b"ab".to_vec())).unwrap();
        sender.try_send(Ok(Vec::new())).unwrap();
        sender.try_send(Ok(b"cde".to_vec())).unwrap();
        sender.try_send(Err(io::Error::other("cut"))).unwrap();
        drop(sender);
        let mut reader = ChannelReader {
            receiver,
            chunk: Vec::new(),
            position: 0,
        };
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(out, b"abcde");
        assert_eq!(err.to_string(), "cut");
        assert_eq!(reader.read(&mut [0u8; 4]).unwrap(), 0);
    }
}
