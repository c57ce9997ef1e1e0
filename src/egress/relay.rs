//! The sandbox side of a run's egress: `tfgate sandbox-relay`, the first program inside the
//! sandbox's private network namespace.
//!
//! Inside, the only interface is loopback. The relay listens there on the proxy port that
//! `HTTPS_PROXY`/`HTTP_PROXY` name and on each allowlisted loopback endpoint (clients connect
//! to `127.0.0.1:PORT` directly, bypassing proxies), and carries every accepted connection over
//! the Unix socket bound in from the host to tfgate's proxy, which decides. Then it runs the
//! program (Terraform) and exits with its status. It decides nothing.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Command;
use std::thread;

/// The subcommand name (`tfgate sandbox-relay …`).
pub const SUBCOMMAND: &str = "sandbox-relay";
/// Where the host's socket directory is bound inside the sandbox.
pub const SANDBOX_SOCKET_DIR: &str = "/run/tfgate-egress";
/// The proxy port inside the sandbox unless an allowlisted loopback endpoint uses it.
const PREFERRED_PROXY_PORT: u16 = 3128;

/// What the relay does (built by the host, parsed inside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayPlan {
    pub socket: PathBuf,
    pub proxy_port: u16,
    /// Allowlisted loopback endpoints (`127.0.0.1`, `::1` or `localhost`, port).
    pub forwards: Vec<(String, u16)>,
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// A proxy port that no forwarded endpoint uses.
pub fn proxy_port(forwards: &[(String, u16)]) -> u16 {
    (PREFERRED_PROXY_PORT..u16::MAX)
        .find(|p| forwards.iter().all(|(_, f)| f != p))
        .unwrap_or(PREFERRED_PROXY_PORT)
}

impl RelayPlan {
    /// The relay's arguments after the binary (pure).
    pub fn to_args(&self) -> Vec<String> {
        let mut out = vec![
            SUBCOMMAND.to_string(),
            "--socket".into(),
            self.socket.display().to_string(),
            "--listen".into(),
            self.proxy_port.to_string(),
        ];
        for (host, port) in &self.forwards {
            out.push("--forward".into());
            out.push(format!("{host}:{port}"));
        }
        out.push("--".into());
        out.push(self.program.display().to_string());
        out.extend(self.args.iter().cloned());
        out
    }

    /// Parses what [`RelayPlan::to_args`] wrote (without the subcommand).
    pub fn parse(args: &[String]) -> Result<RelayPlan, String> {
        let mut plan = RelayPlan {
            socket: PathBuf::new(),
            proxy_port: 0,
            forwards: Vec::new(),
            program: PathBuf::new(),
            args: Vec::new(),
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || it.next().cloned().ok_or(format!("{flag} needs a value"));
            match flag.as_str() {
                "--socket" => plan.socket = PathBuf::from(value()?),
                "--listen" => plan.proxy_port = value()?.parse().map_err(|_| "bad --listen")?,
                "--forward" => {
                    let text = value()?;
                    let (host, port) = text.rsplit_once(':').ok_or("bad --forward")?;
                    let port = port.parse().map_err(|_| "bad --forward port")?;
                    plan.forwards.push((host.to_string(), port));
                }
                "--" => {
                    let program = it.next().ok_or("no program after --")?;
                    plan.program = PathBuf::from(program);
                    plan.args = it.cloned().collect();
                    return Ok(plan);
                }
                other => return Err(format!("unknown relay argument {other}")),
            }
        }
        Err("no program after --".into())
    }
}

/// Entry point of `tfgate sandbox-relay`: the program's exit code (128+N for signal N).
pub fn main(args: &[String]) -> i32 {
    let plan = match RelayPlan::parse(args) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("tfgate sandbox-relay: {e}");
            return 125;
        }
    };
    if let Err(e) = start_listeners(&plan) {
        eprintln!("tfgate sandbox-relay: cannot listen on the sandbox's loopback: {e}");
        return 125;
    }
    match Command::new(&plan.program).args(&plan.args).status() {
        Ok(status) => status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
        Err(e) => {
            eprintln!(
                "tfgate sandbox-relay: cannot start {}: {e}",
                plan.program.display()
            );
            127
        }
    }
}

fn start_listeners(plan: &RelayPlan) -> std::io::Result<()> {
    let proxy = TcpListener::bind(("127.0.0.1", plan.proxy_port))?;
    let socket = plan.socket.clone();
    thread::spawn(move || accept_loop(proxy, socket, None));
    for (host, port) in &plan.forwards {
        let target = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let addrs: Vec<&str> = if host == "localhost" {
            vec!["127.0.0.1", "::1"]
        } else {
            vec![host.as_str()]
        };
        for (i, addr) in addrs.iter().enumerate() {
            match TcpListener::bind((*addr, *port)) {
                Ok(listener) => {
                    let (socket, target) = (plan.socket.clone(), target.clone());
                    thread::spawn(move || accept_loop(listener, socket, Some(target)));
                }
                // `localhost` on ::1 is a bonus; its 127.0.0.1 must work.
                Err(_) if i > 0 => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// Carries each accepted connection to the host's proxy; for a forwarded endpoint, asks
/// for a tunnel to `connect_to` first.
fn accept_loop(listener: TcpListener, socket: PathBuf, connect_to: Option<String>) {
    for stream in listener.incoming().flatten() {
        let (socket, connect_to) = (socket.clone(), connect_to.clone());
        thread::spawn(move || {
            let _ = carry(stream, &socket, connect_to.as_deref());
        });
    }
}

fn carry(client: TcpStream, socket: &PathBuf, connect_to: Option<&str>) -> std::io::Result<()> {
    let mut proxy = UnixStream::connect(socket)?;
    if let Some(target) = connect_to {
        write!(proxy, "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n")?;
        if !tunnel_opened(&mut proxy)? {
            let _ = client.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
    let (mut client_read, mut proxy_write) = (client.try_clone()?, proxy.try_clone()?);
    let upstream = thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut proxy_write);
        let _ = proxy_write.shutdown(Shutdown::Write);
    });
    let (mut proxy_read, mut client_write) = (proxy, client);
    let _ = std::io::copy(&mut proxy_read, &mut client_write);
    let _ = client_write.shutdown(Shutdown::Write);
    let _ = upstream.join();
    Ok(())
}

/// Reads the proxy's answer to CONNECT byte by byte (nothing past the head is consumed).
fn tunnel_opened(proxy: &mut UnixStream) -> std::io::Result<bool> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        if proxy.read(&mut byte)? == 0 {
            return Ok(false);
        }
        head.push(byte[0]);
    }
    Ok(head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let plan = RelayPlan {
            socket: PathBuf::from("/run/tfgate-egress/proxy.sock"),
            proxy_port: 3128,
            forwards: vec![("127.0.0.1".into(), 25500), ("::1".into(), 8080)],
            program: PathBuf::from("/opt/terraform"),
            args: vec!["-chdir=x".into(), "plan".into(), "--".into()],
        };
        let args = plan.to_args();
        assert_eq!(args[0], SUBCOMMAND);
        assert_eq!(RelayPlan::parse(&args[1..]), Ok(plan));
        for bad in [
            &["--socket"][..],
            &["--bogus", "x"],
            &["--listen", "x", "--", "p"],
            &[],
        ] {
            let bad: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            assert!(RelayPlan::parse(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_proxy_port_avoids_forwarded_ports() {
        assert_eq!(proxy_port(&[]), 3128);
        assert_eq!(proxy_port(&[("127.0.0.1".into(), 3128)]), 3129);
        assert_eq!(
            proxy_port(&[("127.0.0.1".into(), 3128), ("::1".into(), 3129)]),
            3130
        );
    }
}
