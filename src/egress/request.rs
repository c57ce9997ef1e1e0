//! The proxy request a sandboxed client sends (pure): `CONNECT host:port` for TLS, or a
//! plain-HTTP request in absolute form (`GET http://host:port/path`), which is rewritten to
//! origin form for the server with `Connection: close`.

/// The most bytes of a request head the proxy reads.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// What the client asked the proxy for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyRequest {
    pub host: String,
    pub port: u16,
    pub kind: RequestKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestKind {
    /// A tunnel: answer `200`, then relay bytes both ways.
    Connect,
    /// Plain HTTP: send this head to the server, then relay bytes both ways.
    Forward { head: Vec<u8> },
}

/// The length of the head (through the blank line) when `buf` holds a whole one.
pub fn head_len(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Parses a complete request head (through the blank line).
pub fn parse_request(head: &[u8]) -> Result<ProxyRequest, String> {
    let text =
        std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8".to_string())?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (method, target, version) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(t), Some(v), None) if v.starts_with("HTTP/1.") && !m.is_empty() => (m, t, v),
        _ => return Err(format!("not an HTTP/1 request line: {:.60}", request_line)),
    };
    if method == "CONNECT" {
        let (host, port) = authority(target, None)?;
        return Ok(ProxyRequest {
            host,
            port,
            kind: RequestKind::Connect,
        });
    }
    let rest = target
        .strip_prefix("http://")
        .ok_or_else(|| "a plain-HTTP proxy request must name an http:// URL".to_string())?;
    let (auth, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if auth.contains('@') {
        return Err("credentials in a proxy URL are not accepted".into());
    }
    let (host, port) = authority(auth, Some(80))?;
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if name.starts_with("proxy-") || name == "connection" || name == "keep-alive" {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok(ProxyRequest {
        host,
        port,
        kind: RequestKind::Forward {
            head: out.into_bytes(),
        },
    })
}

/// `host:port` or `[v6]:port`; `default_port` when the port may be left out.
fn authority(text: &str, default_port: Option<u16>) -> Result<(String, u16), String> {
    let bad = || format!("not a host:port: {text:.80}");
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(bad)?;
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return Err(bad()),
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    if host.is_empty()
        || host.contains(['/', ' ', '@'])
        || (!text.starts_with('[') && host.contains(':'))
    {
        return Err(bad());
    }
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(bad)?,
        None => default_port.ok_or_else(bad)?,
    };
    Ok((host.to_string(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_requests() {
        type Case<'a> = (&'a str, Result<(&'a str, u16), &'a str>);
        let table: &[Case] = &[
            (
                "CONNECT sts.amazonaws.com:443 HTTP/1.1\r\nHost: sts.amazonaws.com:443\r\n\r\n",
                Ok(("sts.amazonaws.com", 443)),
            ),
            ("CONNECT [::1]:8080 HTTP/1.1\r\n\r\n", Ok(("::1", 8080))),
            ("CONNECT 127.1:22 HTTP/1.0\r\n\r\n", Ok(("127.1", 22))),
            (
                "CONNECT sts.amazonaws.com HTTP/1.1\r\n\r\n",
                Err("not a host:port"),
            ),
            ("CONNECT a:0 HTTP/1.1\r\n\r\n", Err("not a host:port")),
            ("CONNECT ::1:80 HTTP/1.1\r\n\r\n", Err("not a host:port")),
            ("CONNECT a:443 HTTP/2\r\n\r\n", Err("not an HTTP/1")),
            ("CONNECT  a:443 HTTP/1.1\r\n\r\n", Err("not an HTTP/1")),
            ("garbage\r\n\r\n", Err("not an HTTP/1")),
        ];
        for (head, expected) in table {
            match (parse_request(head.as_bytes()), expected) {
                (Ok(r), Ok((host, port))) => {
                    assert_eq!(
                        (r.host.as_str(), r.port, r.kind),
                        (*host, *port, RequestKind::Connect),
                        "{head}"
                    )
                }
                (Err(e), Err(part)) => assert!(e.contains(part), "{head}: {e}"),
                (got, want) => panic!("{head}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn plain_http_is_rewritten_to_origin_form() {
        let head = "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\nProxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nUser-Agent: t\r\n\r\n";
        let r = parse_request(head.as_bytes()).unwrap();
        assert_eq!((r.host.as_str(), r.port), ("169.254.169.254", 80));
        let RequestKind::Forward { head } = r.kind else {
            panic!("not a forward")
        };
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "GET /latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\nUser-Agent: t\r\nConnection: close\r\n\r\n"
        );
        let r = parse_request(b"PUT http://127.0.0.1:9000 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((r.host.as_str(), r.port), ("127.0.0.1", 9000));
        for bad in [
            "GET /relative HTTP/1.1\r\n\r\n",
            "GET https://a.example.com/ HTTP/1.1\r\n\r\n",
            "GET http://user:pw@a.example.com/ HTTP/1.1\r\n\r\n",
        ] {
            assert!(parse_request(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn head_length() {
        assert_eq!(head_len(b"CONNECT a:1 HTTP/1.1\r\n\r\nrest"), Some(24));
        assert_eq!(head_len(b"CONNECT a:1 HTTP/1.1\r\n"), None);
    }
}
