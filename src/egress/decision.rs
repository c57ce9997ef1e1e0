//! May this connection go out, and to which address (pure)?
//!
//! Two steps, so that a name that is not allowlisted is never even resolved:
//! [`admit`] checks the `host:port` the client asked for against the allowlist;
//! [`pick_address`] then looks at the addresses the proxy itself resolved and returns the one
//! to connect to. Loopback, link-local, metadata, private, unspecified, reserved and the
//! host's own addresses are refused unless an exact entry names this host and port.

use std::fmt;
use std::net::IpAddr;

use super::address::{classify, AddressClass};
use super::allowlist::{canonical_ip, Allowlist, RuleMatch};

/// Why a connection was refused. The PR sees only these words, never the host or address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DenyReason {
    NotAllowlisted,
    Loopback,
    Metadata,
    LinkLocal,
    Private,
    HostAddress,
    Unspecified,
    Reserved,
    /// The name did not resolve to any address.
    Unresolved,
    /// The request was not a proxy request tfgate understands.
    BadRequest,
}

impl DenyReason {
    /// The stable name used in logs and metrics.
    pub fn name(self) -> &'static str {
        match self {
            DenyReason::NotAllowlisted => "not_allowlisted",
            DenyReason::Loopback => "loopback",
            DenyReason::Metadata => "metadata",
            DenyReason::LinkLocal => "link_local",
            DenyReason::Private => "private",
            DenyReason::HostAddress => "host_address",
            DenyReason::Unspecified => "unspecified",
            DenyReason::Reserved => "reserved",
            DenyReason::Unresolved => "unresolved",
            DenyReason::BadRequest => "bad_request",
        }
    }

    /// What the connection was going to, for "blocked: 2 connections to …".
    pub fn describe(self) -> &'static str {
        match self {
            DenyReason::NotAllowlisted => "a host not on the egress allowlist",
            DenyReason::Loopback => "a loopback address",
            DenyReason::Metadata => "the cloud metadata endpoint",
            DenyReason::LinkLocal => "a link-local address",
            DenyReason::Private => "a private-network address",
            DenyReason::HostAddress => "an address of the tfgate host",
            DenyReason::Unspecified => "an unspecified address (0.0.0.0 or ::)",
            DenyReason::Reserved => "a reserved address",
            DenyReason::Unresolved => "a name that did not resolve",
            DenyReason::BadRequest => "a malformed proxy request",
        }
    }
}

impl fmt::Display for DenyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many refusals of each reason, most frequent first (then by reason).
pub fn count_by_reason(refused: &[DenyReason]) -> Vec<(DenyReason, usize)> {
    let mut counts: Vec<(DenyReason, usize)> = Vec::new();
    for reason in refused {
        match counts.iter_mut().find(|(r, _)| r == reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((*reason, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

/// Step one: is `host:port` on the allowlist at all?
pub fn admit(allowlist: &Allowlist, host: &str, port: u16) -> Result<RuleMatch, DenyReason> {
    allowlist
        .matches(host, port)
        .ok_or(DenyReason::NotAllowlisted)
}

/// Step two: the first resolved address the connection may use. An exact entry opens any
/// address; a wildcard only public ones that are not the host's own.
pub fn pick_address(
    matched: RuleMatch,
    resolved: &[IpAddr],
    host_addrs: &[IpAddr],
) -> Result<IpAddr, DenyReason> {
    let mut first_refusal = None;
    for &ip in resolved {
        let ip = canonical_ip(ip);
        match refusal(ip, host_addrs) {
            None => return Ok(ip),
            Some(_) if matched == RuleMatch::Exact => return Ok(ip),
            Some(reason) => {
                first_refusal.get_or_insert(reason);
            }
        }
    }
    Err(first_refusal.unwrap_or(DenyReason::Unresolved))
}

/// Why a wildcard entry may not reach `ip`, if it may not.
fn refusal(ip: IpAddr, host_addrs: &[IpAddr]) -> Option<DenyReason> {
    let reason = match classify(ip) {
        AddressClass::Public => None,
        AddressClass::Loopback => Some(DenyReason::Loopback),
        AddressClass::Metadata => Some(DenyReason::Metadata),
        AddressClass::LinkLocal => Some(DenyReason::LinkLocal),
        AddressClass::Private => Some(DenyReason::Private),
        AddressClass::Unspecified => Some(DenyReason::Unspecified),
        AddressClass::Reserved => Some(DenyReason::Reserved),
    };
    reason.or_else(|| {
        host_addrs
            .iter()
            .any(|h| canonical_ip(*h) == ip)
            .then_some(DenyReason::HostAddress)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egress::address::parse_ip_spelling;
    use crate::egress::allowlist::parse_rule;

    fn allow(entries: &[&str]) -> Allowlist {
        Allowlist {
            rules: entries.iter().map(|e| parse_rule(e).unwrap()).collect(),
        }
    }

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    /// The whole decision as the proxy makes it, with `resolved` standing in for DNS
    /// (an IP spelling is read as the resolver would read it).
    fn decide(
        list: &Allowlist,
        host: &str,
        port: u16,
        resolved: &[&str],
    ) -> Result<IpAddr, DenyReason> {
        let matched = admit(list, host, port)?;
        let addrs = match parse_ip_spelling(host) {
            Some(ip) => vec![ip],
            None => ips(resolved),
        };
        pick_address(matched, &addrs, &ips(&["203.0.113.7", "192.0.2.10"]))
    }

    #[test]
    fn decision_table() {
        use DenyReason::*;
        let list = allow(&[
            "*.us-east-1.amazonaws.com:443",
            "*.example.com:443",
            "sts.amazonaws.com:443",
            "127.0.0.1:25500",
            "metadata.internal:80",
            "*.internal.example:443",
        ]);
        // (host, port, what DNS answers, expected)
        type Case<'a> = (&'a str, u16, &'a [&'a str], Result<&'a str, DenyReason>);
        let table: &[Case] = &[
            (
                "ec2.us-east-1.amazonaws.com",
                443,
                &["52.94.236.248"],
                Ok("52.94.236.248"),
            ),
            (
                "sts.amazonaws.com",
                443,
                &["52.94.241.129"],
                Ok("52.94.241.129"),
            ),
            ("evil.com", 443, &["1.2.3.4"], Err(NotAllowlisted)),
            (
                "ec2.us-east-1.amazonaws.com",
                80,
                &["52.94.236.248"],
                Err(NotAllowlisted),
            ),
            // DNS rebinding: an allowlisted wildcard name that resolves inward.
            ("a.example.com", 443, &["127.0.0.1"], Err(Loopback)),
            ("a.example.com", 443, &["169.254.169.254"], Err(Metadata)),
            ("a.example.com", 443, &["169.254.10.10"], Err(LinkLocal)),
            ("a.example.com", 443, &["10.0.0.5"], Err(Private)),
            ("a.example.com", 443, &["172.20.0.5"], Err(Private)),
            ("a.example.com", 443, &["192.168.0.5"], Err(Private)),
            ("a.example.com", 443, &["0.0.0.0"], Err(Unspecified)),
            ("a.example.com", 443, &["::1"], Err(Loopback)),
            ("a.example.com", 443, &["fe80::1"], Err(LinkLocal)),
            ("a.example.com", 443, &["fd00:ec2::254"], Err(Metadata)),
            ("a.example.com", 443, &["fd00::5"], Err(Private)),
            (
                "a.example.com",
                443,
                &["::ffff:169.254.169.254"],
                Err(Metadata),
            ),
            ("a.example.com", 443, &["::ffff:127.0.0.1"], Err(Loopback)),
            ("a.example.com", 443, &["203.0.113.7"], Err(Reserved)),
            ("a.example.com", 443, &[], Err(Unresolved)),
            // A mixed answer: only the public address is used.
            (
                "a.example.com",
                443,
                &["127.0.0.1", "52.94.236.248"],
                Ok("52.94.236.248"),
            ),
            (
                "a.example.com",
                443,
                &["::ffff:52.94.236.248"],
                Ok("52.94.236.248"),
            ),
            // Exact entries open what they name, in any spelling of it.
            ("127.0.0.1", 25500, &[], Ok("127.0.0.1")),
            ("127.1", 25500, &[], Ok("127.0.0.1")),
            ("2130706433", 25500, &[], Ok("127.0.0.1")),
            ("0x7f000001", 25500, &[], Ok("127.0.0.1")),
            ("0177.0.0.1", 25500, &[], Ok("127.0.0.1")),
            (
                "metadata.internal",
                80,
                &["169.254.169.254"],
                Ok("169.254.169.254"),
            ),
            // …and nothing else: other ports, other spellings of other addresses.
            ("127.0.0.1", 25501, &[], Err(NotAllowlisted)),
            ("127.1", 22, &[], Err(NotAllowlisted)),
            ("169.254.169.254", 80, &[], Err(NotAllowlisted)),
            ("2852039166", 80, &[], Err(NotAllowlisted)),
            ("0xa9.0xfe.0xa9.0xfe", 80, &[], Err(NotAllowlisted)),
            ("[fd00:ec2::254]", 80, &[], Err(NotAllowlisted)),
            ("localhost", 25500, &["127.0.0.1"], Err(NotAllowlisted)),
            // A wildcard never matches an IP literal.
            ("10.0.0.1", 443, &[], Err(NotAllowlisted)),
        ];
        for (host, port, resolved, expected) in table {
            let got = decide(&list, host, *port, resolved);
            let expected = expected.map(|ip| ip.parse::<IpAddr>().unwrap());
            assert_eq!(got, expected, "{host}:{port} -> {resolved:?}");
        }
    }

    #[test]
    fn the_hosts_own_public_addresses_are_refused_to_wildcards() {
        let host_addrs = ips(&["52.1.2.3"]);
        let got = pick_address(RuleMatch::Wildcard, &ips(&["52.1.2.3"]), &host_addrs);
        assert_eq!(got, Err(DenyReason::HostAddress));
        let got = pick_address(RuleMatch::Exact, &ips(&["52.1.2.3"]), &host_addrs);
        assert_eq!(got, Ok("52.1.2.3".parse().unwrap()));
    }

    #[test]
    fn refusals_are_counted_per_reason() {
        use DenyReason::*;
        assert_eq!(count_by_reason(&[]), vec![]);
        assert_eq!(
            count_by_reason(&[LinkLocal, NotAllowlisted, LinkLocal, Metadata]),
            vec![(LinkLocal, 2), (NotAllowlisted, 1), (Metadata, 1)]
        );
    }

    #[test]
    fn every_reason_has_words_for_the_pr() {
        use DenyReason::*;
        for reason in [
            NotAllowlisted,
            Loopback,
            Metadata,
            LinkLocal,
            Private,
            HostAddress,
            Unspecified,
            Reserved,
            Unresolved,
            BadRequest,
        ] {
            assert!(reason.describe().starts_with("a") || reason.describe().starts_with("the"));
            assert!(!reason.name().contains(' '));
        }
    }
}
