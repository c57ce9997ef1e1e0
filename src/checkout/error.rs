//! Errors of the checkout module. None of them ever holds the installation token or a
//! download URL (codeload URLs of private repositories carry their own token).

use std::io;

/// Why an archive was rejected or could not be written. Paths are archive member paths,
/// escaped and shortened (see [`super::archive_path::shown`]).
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("checkout destination {path} must be absent or an empty directory")]
    DestinationNotEmpty { path: String },
    #[error("archive member {path} rejected: {problem}")]
    UnsafePath { path: String, problem: &'static str },
    #[error("archive link {path} rejected: target {problem}")]
    UnsafeLink { path: String, problem: &'static str },
    #[error("archive member {path} rejected: it would be written through a symlink")]
    ThroughLink { path: String },
    #[error("archive member {path} rejected: hard link to {target}, which is not an earlier regular file")]
    HardLinkTarget { path: String, target: String },
    #[error("archive member {path} rejected: unsupported entry type {kind}")]
    UnsupportedEntry { path: String, kind: &'static str },
    #[error("archive member {path} appears twice")]
    Duplicate { path: String },
    #[error("archive has more than {limit} members")]
    TooManyFiles { limit: usize },
    #[error("archive member {path} is {size} bytes, over the {limit}-byte limit per file")]
    FileTooLarge { path: String, size: u64, limit: u64 },
    #[error("archive content exceeds the {limit}-byte limit")]
    TotalTooLarge { limit: u64 },
    #[error("decompressed archive exceeds {limit} bytes")]
    StreamTooLarge { limit: u64 },
    #[error("archive is corrupt or truncated")]
    Corrupt(#[source] io::Error),
    #[error("could not write {path} into the checkout")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// Why a checkout failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    #[error("commit sha must be 40 hexadecimal characters")]
    InvalidSha,
    #[error("repository {which} is not a valid GitHub name")]
    InvalidRepoName { which: &'static str },
    #[error("GitHub API base URL is not a valid http(s) URL")]
    InvalidApiUrl,
    #[error("installation token cannot be sent as an HTTP header")]
    InvalidToken,
    #[error("GitHub answered {status} to the tarball request{}", status_hint(*.status))]
    HttpStatus { status: u16 },
    /// GitHub asked for no request of this installation before `until` (a secondary rate
    /// limit, or the primary one spent).
    #[error("GitHub rate-limited the tarball request")]
    RateLimited { until: std::time::SystemTime },
    #[error("tarball download was redirected to a non-https location")]
    InsecureRedirect,
    #[error("tarball download was redirected too many times")]
    TooManyRedirects,
    #[error("tarball download failed")]
    Network(#[source] reqwest::Error),
    #[error(transparent)]
    Archive(#[from] ExtractError),
    #[error("tarball extraction task failed")]
    Internal,
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 => " (installation token rejected)",
        403 => " (forbidden or rate limited)",
        404 => " (repository or commit not found, or no access)",
        429 => " (rate limited)",
        500..=599 => " (GitHub error)",
        _ => "",
    }
}

impl CheckoutError {
    /// Whether trying again soon may succeed (network trouble, 429, GitHub 5xx); a 403 or
    /// 404 (no access, no such commit) stays.
    pub fn is_retryable(&self) -> bool {
        match self {
            CheckoutError::Network(_) | CheckoutError::RateLimited { .. } => true,
            CheckoutError::HttpStatus { status } => {
                matches!(status, 408 | 429 | 500..=599)
            }
            _ => false,
        }
    }

    /// One short line safe to show on a pull request: no paths of this server, no status
    /// details, no member names.
    pub fn public_reason(&self) -> &'static str {
        match self {
            CheckoutError::InvalidSha | CheckoutError::InvalidRepoName { .. } => {
                "The pull request head could not be identified."
            }
            CheckoutError::HttpStatus { status: 404 } => {
                "The commit could not be downloaded: not found or not accessible to the app."
            }
            CheckoutError::Archive(ExtractError::TooManyFiles { .. })
            | CheckoutError::Archive(ExtractError::FileTooLarge { .. })
            | CheckoutError::Archive(ExtractError::TotalTooLarge { .. })
            | CheckoutError::Archive(ExtractError::StreamTooLarge { .. }) => {
                "The repository is larger than tfgate's checkout limits."
            }
            CheckoutError::Archive(ExtractError::UnsafePath { .. })
            | CheckoutError::Archive(ExtractError::UnsafeLink { .. })
            | CheckoutError::Archive(ExtractError::ThroughLink { .. })
            | CheckoutError::Archive(ExtractError::HardLinkTarget { .. })
            | CheckoutError::Archive(ExtractError::UnsupportedEntry { .. })
            | CheckoutError::Archive(ExtractError::Duplicate { .. }) => {
                "The repository contains paths or links tfgate refuses to check out."
            }
            _ => "The commit could not be checked out; an admin can see the details in the server log.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_display_carries_a_short_hint() {
        let cases = [
            (401, "GitHub answered 401 to the tarball request (installation token rejected)"),
            (404, "GitHub answered 404 to the tarball request (repository or commit not found, or no access)"),
            (502, "GitHub answered 502 to the tarball request (GitHub error)"),
            (418, "GitHub answered 418 to the tarball request"),
        ];
        for (status, text) in cases {
            assert_eq!(CheckoutError::HttpStatus { status }.to_string(), text);
        }
    }

    #[test]
    fn retryable_only_for_transient_failures() {
        assert!(CheckoutError::HttpStatus { status: 503 }.is_retryable());
        assert!(CheckoutError::HttpStatus { status: 429 }.is_retryable());
        assert!(CheckoutError::HttpStatus { status: 500 }.is_retryable());
        assert!(!CheckoutError::HttpStatus { status: 404 }.is_retryable());
        assert!(!CheckoutError::HttpStatus { status: 403 }.is_retryable());
        assert!(!CheckoutError::HttpStatus { status: 401 }.is_retryable());
        assert!(!CheckoutError::InvalidSha.is_retryable());
        assert!(!CheckoutError::Archive(ExtractError::TooManyFiles { limit: 1 }).is_retryable());
    }

    #[test]
    fn public_reason_hides_details() {
        let cases = [
            (
                CheckoutError::HttpStatus { status: 404 },
                "not found or not accessible",
            ),
            (
                CheckoutError::HttpStatus { status: 502 },
                "an admin can see the details",
            ),
            (
                CheckoutError::Archive(ExtractError::TotalTooLarge { limit: 5 }),
                "larger than tfgate's checkout limits",
            ),
            (
                CheckoutError::Archive(ExtractError::UnsafeLink {
                    path: "\"x\"".into(),
                    problem: "absolute path",
                }),
                "paths or links tfgate refuses",
            ),
            (
                CheckoutError::Archive(ExtractError::Write {
                    path: "\"/var/lib/tfgate/work/run-1/repo\"".into(),
                    source: std::io::Error::other("disk full"),
                }),
                "an admin can see the details",
            ),
        ];
        for (err, expected) in cases {
            let reason = err.public_reason();
            assert!(reason.contains(expected), "{err:?}: {reason}");
            assert!(!reason.contains("/var/lib"));
        }
    }
}
