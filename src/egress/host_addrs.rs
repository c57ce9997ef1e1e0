//! The addresses of the tfgate host's own interfaces (effects), refused to wildcard entries:
//! a run must not reach the server's HTTP port or database through a public address either.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Every IPv4 and IPv6 address configured on this host's interfaces (empty if the list
/// cannot be read; loopback and private ranges are refused by class anyway).
pub fn host_addresses() -> Vec<IpAddr> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list we free below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        tracing::warn!(
            "could not list the host's addresses; egress relies on address classes only"
        );
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut cursor = head;
    while !cursor.is_null() {
        // SAFETY: cursor walks the list getifaddrs returned; each ifa_addr is null or points
        // to a sockaddr of the family it names.
        unsafe {
            let entry = &*cursor;
            if let Some(ip) = sockaddr_ip(entry.ifa_addr) {
                out.push(ip);
            }
            cursor = entry.ifa_next;
        }
    }
    // SAFETY: head came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    out.sort();
    out.dedup();
    out
}

/// SAFETY: `addr` is null or a valid sockaddr.
unsafe fn sockaddr_ip(addr: *const libc::sockaddr) -> Option<IpAddr> {
    if addr.is_null() {
        return None;
    }
    match i32::from((*addr).sa_family) {
        libc::AF_INET => {
            let v4 = &*(addr as *const libc::sockaddr_in);
            Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr))))
        }
        libc::AF_INET6 => {
            let v6 = &*(addr as *const libc::sockaddr_in6);
            Some(IpAddr::V6(Ipv6Addr::from(v6.sin6_addr.s6_addr)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_has_its_loopback_address() {
        let addrs = host_addresses();
        assert!(
            addrs.contains(&IpAddr::V4(Ipv4Addr::LOCALHOST)),
            "{addrs:?}"
        );
    }
}
