//! The egress allowlist: which `host:port` a run may reach (pure).
//!
//! An entry is `host:port` (`sts.amazonaws.com:443`, `127.0.0.1:9000`, `[::1]:8080`) or a
//! wildcard over a domain's subdomains (`*.us-east-1.amazonaws.com:443`). Only an exact entry
//! opens a loopback, link-local, private or host address: a wildcard never does.

use std::fmt;
use std::net::IpAddr;

use super::address::parse_ip_spelling;

/// One allowlist entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct EgressRule {
    pub host: HostPattern,
    pub port: u16,
}

/// The host part of an entry, normalised (lower case, no trailing dot, IPs in canonical form).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum HostPattern {
    /// This name or address only.
    Exact(String),
    /// Any name ending in `.suffix` (not `suffix` itself).
    Subdomains(String),
}

/// How a `host:port` matched the allowlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleMatch {
    /// An entry names exactly this host and port.
    Exact,
    /// Only a wildcard entry covers it.
    Wildcard,
}

/// The entries of one run, defaults first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    pub rules: Vec<EgressRule>,
}

impl serde::Serialize for EgressRule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl fmt::Display for EgressRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            HostPattern::Exact(h) if h.contains(':') => write!(f, "[{h}]:{}", self.port),
            HostPattern::Exact(h) => write!(f, "{h}:{}", self.port),
            HostPattern::Subdomains(s) => write!(f, "*.{s}:{}", self.port),
        }
    }
}

/// A host as the allowlist compares it: lower case, without a trailing dot or brackets, an
/// IP address in its canonical spelling (`127.1` → `127.0.0.1`).
pub fn normalize_host(host: &str) -> String {
    match parse_ip_spelling(host) {
        Some(ip) => canonical_ip(ip).to_string(),
        None => host.trim_end_matches('.').to_ascii_lowercase(),
    }
}

/// IPv4-mapped IPv6 addresses are the IPv4 address they map.
pub fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    }
}

/// Parses one entry; the error says what is wrong with it.
pub fn parse_rule(text: &str) -> Result<EgressRule, String> {
    let text = text.trim();
    let (host, port) = split_host_port(text)
        .ok_or_else(|| format!("`{text}` is not host:port (for example `api.example.com:443`)"))?;
    let port: u16 = port
        .parse()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| format!("`{text}`: the port must be a number from 1 to 65535"))?;
    let host = if let Some(suffix) = host.strip_prefix("*.") {
        if suffix.contains('*') || !valid_name(suffix) || !suffix.contains('.') {
            return Err(format!(
                "`{text}`: a wildcard covers the subdomains of a domain with at least two labels, like `*.example.com:443`"
            ));
        }
        HostPattern::Subdomains(suffix.trim_end_matches('.').to_ascii_lowercase())
    } else if parse_ip_spelling(host).is_some() || valid_name(host) {
        HostPattern::Exact(normalize_host(host))
    } else {
        return Err(format!(
            "`{text}`: `{host}` is not a host name or an IP address"
        ));
    };
    Ok(EgressRule { host, port })
}

/// `host:port`, `[v6]:port`.
fn split_host_port(text: &str) -> Option<(&str, &str)> {
    if let Some(rest) = text.strip_prefix('[') {
        let (host, port) = rest.split_once("]:")?;
        return Some((host, port));
    }
    let (host, port) = text.rsplit_once(':')?;
    (!host.is_empty() && !host.contains(':')).then_some((host, port))
}

fn valid_name(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

impl Allowlist {
    /// How `host:port` (as the client asked for it) matches; `None`: not allowlisted.
    pub fn matches(&self, host: &str, port: u16) -> Option<RuleMatch> {
        let host = normalize_host(host);
        let mut best = None;
        for rule in self.rules.iter().filter(|r| r.port == port) {
            match &rule.host {
                HostPattern::Exact(h) if *h == host => return Some(RuleMatch::Exact),
                HostPattern::Subdomains(suffix)
                    if parse_ip_spelling(&host).is_none()
                        && host.len() > suffix.len() + 1
                        && host.ends_with(suffix.as_str())
                        && host.as_bytes()[host.len() - suffix.len() - 1] == b'.' =>
                {
                    best = Some(RuleMatch::Wildcard);
                }
                _ => {}
            }
        }
        best
    }

    /// The loopback endpoints named exactly (`127.0.0.1:9000`, `localhost:5432`, `[::1]:80`):
    /// clients bypass proxies for these, so the sandbox forwards them through the proxy.
    pub fn loopback_endpoints(&self) -> Vec<(String, u16)> {
        let mut out: Vec<(String, u16)> = self
            .rules
            .iter()
            .filter_map(|r| match &r.host {
                HostPattern::Exact(h) if is_loopback_name(h) => Some((h.clone(), r.port)),
                _ => None,
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost" || parse_ip_spelling(host).is_some_and(|ip| canonical_ip(ip).is_loopback())
}

/// The endpoints every run may reach without the policy naming them: the AWS APIs of the
/// project's regions (regional endpoints, STS, S3 and the global services IAM, Route 53,
/// CloudFront, Organizations), the Terraform registry for modules, and, when providers are
/// installed directly rather than from the server's mirror, HashiCorp's release host.
pub fn default_rules(regions: &[String], providers_direct: bool) -> Vec<EgressRule> {
    let mut texts: Vec<String> = vec![
        "sts.amazonaws.com:443".into(),
        "s3.amazonaws.com:443".into(),
        "*.s3.amazonaws.com:443".into(),
        "iam.amazonaws.com:443".into(),
        "route53.amazonaws.com:443".into(),
        "cloudfront.amazonaws.com:443".into(),
        "organizations.us-east-1.amazonaws.com:443".into(),
        "registry.terraform.io:443".into(),
    ];
    for region in regions {
        texts.push(format!("*.{region}.amazonaws.com:443"));
    }
    if providers_direct {
        texts.push("releases.hashicorp.com:443".into());
    }
    texts.iter().filter_map(|t| parse_rule(t).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[&str]) -> Allowlist {
        Allowlist {
            rules: entries.iter().map(|e| parse_rule(e).unwrap()).collect(),
        }
    }

    #[test]
    fn entries_parse_or_say_why_not() {
        let table: &[(&str, Result<&str, &str>)] = &[
            ("sts.amazonaws.com:443", Ok("sts.amazonaws.com:443")),
            ("STS.AmazonAWS.com.:443", Ok("sts.amazonaws.com:443")),
            (
                "*.us-east-1.amazonaws.com:443",
                Ok("*.us-east-1.amazonaws.com:443"),
            ),
            ("127.0.0.1:25500", Ok("127.0.0.1:25500")),
            ("127.1:25500", Ok("127.0.0.1:25500")),
            ("[::1]:8080", Ok("[::1]:8080")),
            ("localhost:5432", Ok("localhost:5432")),
            ("example.com", Err("is not host:port")),
            ("example.com:0", Err("port must be")),
            ("example.com:70000", Err("port must be")),
            ("example.com:https", Err("port must be")),
            ("*:443", Err("is not a host name")),
            ("*.com:443", Err("wildcard covers")),
            ("a.*.com:443", Err("is not a host name")),
            ("*.*.example.com:443", Err("wildcard covers")),
            ("exa mple.com:443", Err("is not a host name")),
            ("::1:80", Err("is not host:port")),
        ];
        for (text, expected) in table {
            match (parse_rule(text), expected) {
                (Ok(rule), Ok(shown)) => assert_eq!(rule.to_string(), *shown, "{text}"),
                (Err(e), Err(part)) => assert!(e.contains(part), "{text}: {e}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn matching_table() {
        let allow = list(&[
            "*.us-east-1.amazonaws.com:443",
            "sts.amazonaws.com:443",
            "127.0.0.1:25500",
            "metadata.internal:80",
        ]);
        let table: &[(&str, u16, Option<RuleMatch>)] = &[
            (
                "ec2.us-east-1.amazonaws.com",
                443,
                Some(RuleMatch::Wildcard),
            ),
            (
                "b.s3.us-east-1.amazonaws.com",
                443,
                Some(RuleMatch::Wildcard),
            ),
            (
                "EC2.US-EAST-1.AMAZONAWS.COM.",
                443,
                Some(RuleMatch::Wildcard),
            ),
            ("us-east-1.amazonaws.com", 443, None),
            ("evilus-east-1.amazonaws.com", 443, None),
            ("ec2.us-east-1.amazonaws.com", 80, None),
            ("ec2.us-east-1.amazonaws.com.evil.com", 443, None),
            ("sts.amazonaws.com", 443, Some(RuleMatch::Exact)),
            ("127.0.0.1", 25500, Some(RuleMatch::Exact)),
            ("127.1", 25500, Some(RuleMatch::Exact)),
            ("2130706433", 25500, Some(RuleMatch::Exact)),
            ("::ffff:127.0.0.1", 25500, Some(RuleMatch::Exact)),
            ("127.0.0.1", 25501, None),
            ("localhost", 25500, None),
            ("metadata.internal", 80, Some(RuleMatch::Exact)),
            ("example.com", 443, None),
        ];
        for (host, port, expected) in table {
            assert_eq!(allow.matches(host, *port), *expected, "{host}:{port}");
        }
    }

    #[test]
    fn loopback_endpoints_are_the_exact_loopback_entries() {
        let allow = list(&[
            "127.0.0.1:25500",
            "localhost:5432",
            "[::1]:8080",
            "10.0.0.1:80",
            "*.example.com:443",
            "127.0.0.1:25500",
        ]);
        assert_eq!(
            allow.loopback_endpoints(),
            vec![
                ("127.0.0.1".to_string(), 25500),
                ("::1".to_string(), 8080),
                ("localhost".to_string(), 5432),
            ]
        );
    }

    #[test]
    fn defaults_cover_the_regions_and_the_registry() {
        let allow = Allowlist {
            rules: default_rules(&["eu-west-1".into()], false),
        };
        let table: &[(&str, bool)] = &[
            ("sts.amazonaws.com", true),
            ("sts.eu-west-1.amazonaws.com", true),
            ("ec2.eu-west-1.amazonaws.com", true),
            ("bucket.s3.amazonaws.com", true),
            ("iam.amazonaws.com", true),
            ("registry.terraform.io", true),
            ("ec2.us-east-1.amazonaws.com", false),
            ("releases.hashicorp.com", false),
            ("github.com", false),
        ];
        for (host, allowed) in table {
            assert_eq!(allow.matches(host, 443).is_some(), *allowed, "{host}");
        }
        let direct = Allowlist {
            rules: default_rules(&[], true),
        };
        assert!(direct.matches("releases.hashicorp.com", 443).is_some());
    }
}
