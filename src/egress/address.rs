//! What kind of address a connection would reach (pure).
//!
//! The proxy decides on the address it is about to connect to, never on the name it was given:
//! a name that resolves to 127.0.0.1 is loopback, and so is `2130706433`, `0x7f.1` or
//! `::ffff:127.0.0.1`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The kind of network an address belongs to, for the egress decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AddressClass {
    /// A routable address on the internet.
    Public,
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// The cloud instance metadata service: 169.254.169.254, 169.254.170.2 (ECS),
    /// fd00:ec2::254.
    Metadata,
    /// 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// RFC 1918, 100.64.0.0/10 (shared), fc00::/7 (ULA), fec0::/10 (site-local).
    Private,
    /// 0.0.0.0/8, :: (which reach the host itself).
    Unspecified,
    /// Multicast, broadcast, documentation, benchmarking and other special-purpose ranges.
    Reserved,
}

/// The class of `ip`. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
/// 6to4) are classified by the embedded address, unless that is public.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, d] = ip.octets();
    match (a, b, c, d) {
        (169, 254, 169, 254) | (169, 254, 170, 2) => AddressClass::Metadata,
        (0, ..) => AddressClass::Unspecified,
        (127, ..) => AddressClass::Loopback,
        (169, 254, ..) => AddressClass::LinkLocal,
        (10, ..) | (192, 168, ..) => AddressClass::Private,
        (172, 16..=31, ..) | (100, 64..=127, ..) => AddressClass::Private,
        (192, 0, 0 | 2, _) | (198, 18..=19, ..) | (198, 51, 100, _) | (203, 0, 113, _) => {
            AddressClass::Reserved
        }
        (224..=255, ..) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        return match classify_v4(v4) {
            // ::a.b.c.d with a public a.b.c.d is still an unusual route: keep it reserved.
            AddressClass::Public if ip.segments()[0] == 0 && ip.segments()[5] != 0xffff => {
                AddressClass::Reserved
            }
            class => class,
        };
    }
    let s = ip.segments();
    if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        AddressClass::Metadata
    } else if s[0] & 0xffc0 == 0xfe80 {
        AddressClass::LinkLocal
    } else if s[0] & 0xfe00 == 0xfc00 || s[0] & 0xffc0 == 0xfec0 {
        AddressClass::Private
    } else if s[0] & 0xff00 == 0xff00                 // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8)        // documentation
        || (s[0] == 0x2001 && s[1] == 0)             // Teredo (the IPv4 inside is obscured)
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0])  // discard
        || s[0] == 0
    {
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`, `64:ff9b:1::/48`) or 6to4 (`2002:AABB:CCDD::`)
/// IPv6 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some(low(hi, lo)),
        // ::a.b.c.d, but not :: and ::1 (classified as themselves).
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x64, 0xff9b, 1, ..] => Some(low(s[6], s[7])),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

/// `host` read as an IP address in any spelling a resolver accepts: dotted decimal, the
/// `inet_aton` forms (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`), and IPv6 with or
/// without brackets and zone (`[::1]`, `fe80::1%eth0`). `None` for a name.
pub fn parse_ip_spelling(host: &str) -> Option<IpAddr> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let unbracketed = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let without_zone = unbracketed.split('%').next().unwrap_or(unbracketed);
    if let Ok(v6) = without_zone.parse::<Ipv6Addr>() {
        return Some(IpAddr::V6(v6));
    }
    inet_aton(host).map(IpAddr::V4)
}

/// The classic `inet_aton` grammar: one to four parts, each decimal, octal (leading `0`) or
/// hexadecimal (`0x`); the last part fills the remaining bytes.
fn inet_aton(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<u64> = text
        .split('.')
        .map(parse_part)
        .collect::<Option<Vec<_>>>()?;
    let (last, head) = parts.split_last()?;
    if head.len() > 3 || head.iter().any(|&p| p > 0xff) {
        return None;
    }
    let last_bits = 8 * (4 - head.len() as u32);
    if *last >= 1u64 << last_bits {
        return None;
    }
    let value = head
        .iter()
        .fold(0u64, |acc, &p| (acc << 8) | p)
        .checked_shl(last_bits)?
        | last;
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

fn parse_part(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() && radix != 16 {
        return None;
    }
    if digits.is_empty() {
        return Some(0);
    }
    if digits.len() > 12 || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_addresses() {
        let table: &[(&str, Option<&str>)] = &[
            ("127.0.0.1", Some("127.0.0.1")),
            ("127.1", Some("127.0.0.1")),
            ("127.0.1", Some("127.0.0.1")),
            ("2130706433", Some("127.0.0.1")),
            ("0x7f000001", Some("127.0.0.1")),
            ("0X7F000001", Some("127.0.0.1")),
            ("0177.0.0.1", Some("127.0.0.1")),
            ("0x7f.0.0.1", Some("127.0.0.1")),
            ("0xa9.0xfe.0xa9.0xfe", Some("169.254.169.254")),
            ("0251.0376.0251.0376", Some("169.254.169.254")),
            ("2852039166", Some("169.254.169.254")),
            ("169.254.43518", Some("169.254.169.254")),
            ("169.254.169.254.", Some("169.254.169.254")),
            ("0", Some("0.0.0.0")),
            ("10.0.0.1", Some("10.0.0.1")),
            ("[::1]", Some("::1")),
            ("::1", Some("::1")),
            ("fe80::1%eth0", Some("fe80::1")),
            ("[fe80::1%25eth0]", Some("fe80::1")),
            ("::ffff:169.254.169.254", Some("::ffff:169.254.169.254")),
            ("256.0.0.1", None),
            ("1.2.3.4.5", None),
            ("4294967296", None),
            ("127.0.0.256", None),
            ("08.0.0.1", None),
            ("1..2", None),
            ("", None),
            ("example.com", None),
            ("sts.us-east-1.amazonaws.com", None),
            ("0x", Some("0.0.0.0")),
            ("1e3", None),
        ];
        for (text, expected) in table {
            let got = parse_ip_spelling(text);
            let expected = expected.map(|e| e.parse::<IpAddr>().unwrap());
            assert_eq!(got, expected, "{text:?}");
        }
    }

    #[test]
    fn classes_of_addresses() {
        use AddressClass::*;
        let table: &[(&str, AddressClass)] = &[
            ("52.94.236.248", Public),
            ("8.8.8.8", Public),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("169.254.169.254", Metadata),
            ("169.254.170.2", Metadata),
            ("169.254.1.1", LinkLocal),
            ("10.1.2.3", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("172.32.0.1", Public),
            ("192.168.1.1", Private),
            ("100.64.0.1", Private),
            ("100.128.0.1", Public),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("224.0.0.1", Reserved),
            ("255.255.255.255", Reserved),
            ("192.0.2.1", Reserved),
            ("198.18.0.1", Reserved),
            ("::1", Loopback),
            ("::", Unspecified),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("fd00:ec2::254", Metadata),
            ("fd12:3456::1", Private),
            ("fc00::1", Private),
            ("fec0::1", Private),
            ("ff02::1", Reserved),
            ("2001:db8::1", Reserved),
            ("2001:0:4136:e378::1", Reserved),
            ("2600:1f18::1", Public),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:169.254.169.254", Metadata),
            ("::ffff:10.0.0.1", Private),
            ("::ffff:52.94.236.248", Public),
            ("::127.0.0.1", Loopback),
            ("::52.94.236.248", Reserved),
            ("64:ff9b::a9fe:a9fe", Metadata),
            ("64:ff9b::7f00:1", Loopback),
            ("64:ff9b:1::a00:1", Private),
            ("2002:a9fe:a9fe::1", Metadata),
            ("2002:7f00:1::1", Loopback),
            ("2002:345e:ecf8::1", Public),
        ];
        for (text, expected) in table {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify(ip), *expected, "{text}");
        }
    }
}
