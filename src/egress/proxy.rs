//! The host side of a run's egress: an HTTP proxy on a Unix socket that only this run's
//! sandbox can reach (effects; every decision is in [`super::decision`]).
//!
//! One proxy per sandboxed step. It reads a request head, checks the allowlist, resolves the
//! name itself, picks the address with [`pick_address`], connects to exactly that address and
//! relays bytes. A refusal answers `403` and is recorded (reason only) for the run's comment;
//! the log line names the run, host, port and reason, never a request body.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;
use tokio::time::timeout;

use super::address::parse_ip_spelling;
use super::allowlist::Allowlist;
use super::decision::{admit, pick_address, DenyReason};
use super::request::{head_len, parse_request, ProxyRequest, RequestKind, MAX_HEAD_BYTES};

/// File name of the proxy's socket in its directory.
pub const SOCKET_NAME: &str = "proxy.sock";
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(15);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// What a run may reach, and the host's own addresses (refused to wildcard entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressPolicy {
    pub allowlist: Allowlist,
    pub host_addrs: Vec<IpAddr>,
}

/// A running proxy; [`EgressProxy::finish`] stops it and returns what it refused.
pub struct EgressProxy {
    dir: tempfile::TempDir,
    task: JoinHandle<()>,
    refused: Arc<Mutex<Refusals>>,
}

/// What a proxy refused: every refusal's reason, and the `host:port` of those an allowlist
/// entry would have admitted (as the client asked for it; never shown unredacted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusals {
    pub reasons: Vec<DenyReason>,
    pub endpoints: Vec<String>,
}

impl EgressProxy {
    /// Starts a proxy on a fresh socket in a new private directory under `root`.
    pub fn start(root: &Path, policy: Arc<EgressPolicy>, run: String) -> std::io::Result<Self> {
        std::fs::create_dir_all(root)?;
        let dir = tempfile::Builder::new()
            .prefix("egress-")
            .tempdir_in(root)?;
        let listener = UnixListener::bind(dir.path().join(SOCKET_NAME))?;
        let refused = Arc::new(Mutex::new(Refusals::default()));
        let sink = refused.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (policy, sink, run) = (policy.clone(), sink.clone(), run.clone());
                tokio::spawn(async move { serve(stream, &policy, &sink, &run).await });
            }
        });
        Ok(EgressProxy { dir, task, refused })
    }

    /// The directory holding the socket (bound into the sandbox).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn socket_path(&self) -> PathBuf {
        self.dir.path().join(SOCKET_NAME)
    }

    /// Stops accepting (open tunnels end with the sandbox) and returns the refusals.
    pub fn finish(self) -> Refusals {
        self.task.abort();
        let refused = self.refused.lock().map(|r| r.clone()).unwrap_or_default();
        refused
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut client: UnixStream,
    policy: &EgressPolicy,
    refused: &Mutex<Refusals>,
    run: &str,
) {
    let (request, rest) = match read_request(&mut client).await {
        Ok(parsed) => parsed,
        Err(why) => {
            tracing::warn!(run, reason = "bad_request", detail = %why, "egress refused");
            record(refused, DenyReason::BadRequest, None);
            let _ = client.write_all(&answer(400, DenyReason::BadRequest)).await;
            return;
        }
    };
    let upstream = match open_upstream(&request, policy).await {
        Ok(stream) => stream,
        Err(Refusal::Denied(reason)) => {
            tracing::warn!(run, host = %request.host, port = request.port, reason = %reason, "egress refused");
            let endpoint = match request.host.contains(':') {
                true => format!("[{}]:{}", request.host, request.port),
                false => format!("{}:{}", request.host, request.port),
            };
            record(refused, reason, Some(endpoint));
            let _ = client.write_all(&answer(403, reason)).await;
            return;
        }
        Err(Refusal::Unreachable(why)) => {
            tracing::info!(run, host = %request.host, port = request.port, error = %why, "egress connect failed");
            let _ = client
                .write_all(
                    b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
            return;
        }
    };
    let _ = relay(client, upstream, request.kind, &rest).await;
}

fn record(refused: &Mutex<Refusals>, reason: DenyReason, endpoint: Option<String>) {
    let fixable = matches!(
        reason,
        DenyReason::NotAllowlisted | DenyReason::Loopback | DenyReason::Private
    );
    if let Ok(mut list) = refused.lock() {
        list.reasons.push(reason);
        list.endpoints.extend(endpoint.filter(|_| fixable));
    }
}

fn answer(status: u16, reason: DenyReason) -> Vec<u8> {
    let body = format!("tfgate egress: blocked, {}\n", reason.describe());
    let title = if status == 403 {
        "Forbidden"
    } else {
        "Bad Request"
    };
    format!(
        "HTTP/1.1 {status} {title}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The request and any bytes the client sent after its head.
async fn read_request(client: &mut UnixStream) -> Result<(ProxyRequest, Vec<u8>), String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(end) = head_len(&buf) {
            break end;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err("request head too long".into());
        }
        let n = timeout(HEAD_TIMEOUT, client.read(&mut chunk))
            .await
            .map_err(|_| "no request head in time".to_string())?
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("closed before a request head".into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let request = parse_request(&buf[..end])?;
    Ok((request, buf[end..].to_vec()))
}

enum Refusal {
    Denied(DenyReason),
    Unreachable(String),
}

async fn open_upstream(
    request: &ProxyRequest,
    policy: &EgressPolicy,
) -> Result<TcpStream, Refusal> {
    let matched = admit(&policy.allowlist, &request.host, request.port).map_err(Refusal::Denied)?;
    let addrs: Vec<IpAddr> = match parse_ip_spelling(&request.host) {
        Some(ip) => vec![ip],
        None => resolve(&request.host, request.port).await,
    };
    let ip = pick_address(matched, &addrs, &policy.host_addrs).map_err(Refusal::Denied)?;
    match timeout(
        CONNECT_TIMEOUT,
        TcpStream::connect(SocketAddr::new(ip, request.port)),
    )
    .await
    {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(e)) => Err(Refusal::Unreachable(e.to_string())),
        Err(_) => Err(Refusal::Unreachable("connect timed out".into())),
    }
}

async fn resolve(host: &str, port: u16) -> Vec<IpAddr> {
    match timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, port))).await {
        Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
        _ => Vec::new(),
    }
}

async fn relay(
    mut client: UnixStream,
    mut upstream: TcpStream,
    kind: RequestKind,
    rest: &[u8],
) -> std::io::Result<()> {
    match kind {
        RequestKind::Connect => {
            client
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await?
        }
        RequestKind::Forward { head } => upstream.write_all(&head).await?,
    }
    upstream.write_all(rest).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}
