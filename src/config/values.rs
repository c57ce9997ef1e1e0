//! The checks of single configured values, and their defaults: the retention, the public
//! URL, the admin policy repository's name, the GitHub call deadline. Pure; the layers that
//! use these values (`db::retention`, `github`, `policy_repo`) read them from here.

use std::time::Duration;

use anyhow::Result;

/// The default deadline of one GitHub call (`TFGATE_GITHUB_TIMEOUT_SECS`).
pub const DEFAULT_GITHUB_TIMEOUT: Duration = Duration::from_secs(30);

/// Shortest retention accepted (days), other than 0 (keep everything).
pub const MIN_RETENTION_DAYS: u32 = 8;
pub const DEFAULT_RETENTION_DAYS: u32 = 30;

/// `TFGATE_RETENTION_DAYS` → how many days rows are kept (`None`: forever).
pub fn retention_days(days: u32) -> Result<Option<u32>, String> {
    match days {
        0 => Ok(None),
        d if d < MIN_RETENTION_DAYS => Err(format!(
            "retention of {d} days is too short: use 0 (keep everything) or at least \
             {MIN_RETENTION_DAYS} days; GitHub can redeliver a webhook for up to 7 days, and a \
             delivery id forgotten sooner would run its command again"
        )),
        d => Ok(Some(d)),
    }
}

/// The public URL carries the setup callback (the App's private key comes back through it)
/// and every webhook: `https://`, or `http://` to a loopback host (127.0.0.0/8, ::1,
/// `localhost`) for local use.
pub fn check_public_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| format!("`{url}` is not a URL ({e}); use https://HOST"))?;
    let host = parsed.host_str().unwrap_or("");
    let bare_ip = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || bare_ip
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match parsed.scheme() {
        "https" if !host.is_empty() => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(format!(
            "`{url}` must start with https:// (GitHub sends the App's credentials and every \
             webhook to it); http:// is accepted only for 127.0.0.0/8, ::1 and localhost"
        )),
    }
}

/// `TFGATE_PUBLIC_URL` as configured, refused at start unless [`check_public_url`] accepts it.
pub fn checked_public_url(url: Option<String>) -> Result<Option<String>> {
    if let Some(u) = &url {
        check_public_url(u).map_err(|e| anyhow::anyhow!("TFGATE_PUBLIC_URL: {e}"))?;
    }
    Ok(url)
}

/// `owner/name` of `TFGATE_POLICY_REPO`, checked.
pub fn parse_policy_repo(text: &str) -> Result<(String, String), String> {
    let valid = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && part != "."
            && part != ".."
    };
    match text.trim().split_once('/') {
        Some((owner, name)) if valid(owner) && valid(name) => {
            Ok((owner.to_string(), name.to_string()))
        }
        _ => Err(format!(
            "TFGATE_POLICY_REPO must be OWNER/NAME (e.g. acme/tfgate-admin), got {text:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_days_table() {
        assert_eq!(retention_days(0), Ok(None));
        assert_eq!(retention_days(8), Ok(Some(8)));
        assert_eq!(retention_days(30), Ok(Some(30)));
        assert_eq!(retention_days(3650), Ok(Some(3650)));
        for short in 1..MIN_RETENTION_DAYS {
            let e = retention_days(short).unwrap_err();
            assert!(e.contains("at least 8 days"), "{e}");
            assert!(e.contains("redeliver"), "{e}");
        }
    }

    #[test]
    fn public_url_must_be_https_unless_loopback() {
        for ok in [
            "https://tfgate.example",
            "https://10.0.0.5:8443/x",
            "http://127.0.0.1:3000",
            "http://127.8.9.10",
            "http://[::1]:3000",
            "http://localhost:3000",
            "http://LOCALHOST",
        ] {
            assert_eq!(check_public_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://tfgate.example",
            "http://10.0.0.5:3000",
            "http://localhost.evil.example",
            "http://128.0.0.1",
            "http://[::2]",
            "ftp://localhost",
            "tfgate.example",
            "",
        ] {
            let err = check_public_url(bad).unwrap_err();
            assert!(err.contains(bad), "{bad}: {err}");
        }
    }

    #[test]
    fn policy_repo_names() {
        let table: &[(&str, Option<(&str, &str)>)] = &[
            ("acme/tfgate-admin", Some(("acme", "tfgate-admin"))),
            (" acme/admin.repo_1 ", Some(("acme", "admin.repo_1"))),
            ("acme", None),
            ("acme/", None),
            ("/admin", None),
            ("acme/admin/extra", None),
            ("acme/..", None),
            ("ac me/admin", None),
        ];
        for (text, expected) in table {
            let got = parse_policy_repo(text).ok();
            let expected = expected.map(|(o, n)| (o.to_string(), n.to_string()));
            assert_eq!(got, expected, "{text}");
        }
        assert!(parse_policy_repo("acme")
            .unwrap_err()
            .contains("OWNER/NAME"));
    }
}
