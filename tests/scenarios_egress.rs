//! Plan-time code reaches only what the policy's egress allowlist names, never the host.
//!
//! Real Terraform in bubblewrap, with the test provider's `fake_fetch` data source (a GET at
//! plan time, proxied as Go's `http.ProxyFromEnvironment` does) and Terraform's own `http`
//! backend. Every listener is on 127.0.0.1: the host's loopback stands for the host's
//! services, its metadata endpoint and its neighbours (rules for other ranges are proven on
//! the decision function, never by connecting).

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use support::*;

/// A "host service" on 127.0.0.1 that answers `200 ok` and counts the connections it sees.
struct HostService {
    port: u16,
    seen: Arc<AtomicUsize>,
}

impl HostService {
    async fn start() -> HostService {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = seen.clone();
        tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            while let Ok((mut stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                    )
                    .await;
            }
        });
        HostService { port, seen }
    }

    fn connections(&self) -> usize {
        self.seen.load(Ordering::SeqCst)
    }
}

fn fetching(url: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    fake = {{ source = \"tfgate/fake\", version = \"0.1.0\" }}\n  }}\n}}\ndata \"fake_fetch\" \"probe\" {{\n  url = \"{url}\"\n}}\noutput \"status\" {{\n  value = data.fake_fetch.probe.status\n}}\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_time_fetch_of_a_host_port_not_allowlisted_is_blocked_and_reported() {
    let service = HostService::start().await;
    // `127.1` is the host's loopback in another spelling: clients send it to the proxy.
    let url = format!("http://127.1:{}/latest/meta-data/", service.port);
    let Some((h, _repo)) = one_root_harness("", &fetching(&url)).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("failed"), "{reply}");
    assert!(
        reply.contains("blocked: 1 connection to a host not on the egress allowlist"),
        "{reply}"
    );
    // The proxy's refusal makes the failure tfgate's own, with the policy key to edit (the
    // endpoint, spelled `127.1`, is neither a plain address nor a name: not shown).
    assert!(
        reply.contains("| — |  | egress blocked |") || reply.contains("| egress blocked |"),
        "{reply}"
    );
    assert!(reply.contains("under `egress:`"), "{reply}");
    assert_eq!(
        service.connections(),
        0,
        "the host service saw a connection"
    );
    assert!(
        !reply.contains("127.1") && !reply.contains(&service.port.to_string()),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_connection_to_127_0_0_1_reaches_the_sandboxs_own_loopback_not_the_hosts() {
    let service = HostService::start().await;
    // Loopback literals bypass proxies: inside, 127.0.0.1 is the sandbox's own loopback.
    let url = format!("http://127.0.0.1:{}/", service.port);
    let Some((h, _repo)) = one_root_harness("", &fetching(&url)).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("failed"), "{reply}");
    assert_eq!(
        service.connections(),
        0,
        "the host service saw a connection"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowlisted_host_port_is_reached_through_the_proxy() {
    let service = HostService::start().await;
    let entry = format!("127.0.0.1:{}", service.port);
    let egress = format!("    egress: [\"{entry}\"]\n");
    // Both the direct spelling (forwarded inside) and another spelling (proxied) arrive.
    let main_tf = fetching(&format!("http://{entry}/")).replace(
        "output",
        &format!(
            "data \"fake_fetch\" \"again\" {{\n  url = \"http://127.1:{}/\"\n}}\noutput",
            service.port
        ),
    );
    let Some((h, _repo)) = one_root_harness(&egress, &main_tf).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(!reply.contains("blocked"), "{reply}");
    assert!(!reply.contains("failed"), "{reply}");
    assert_eq!(service.connections(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_pointed_at_a_host_port_not_allowlisted_never_reaches_it() {
    let service = HostService::start().await;
    let main_tf = format!(
        "terraform {{\n  backend \"http\" {{\n    address = \"http://127.1:{}/state\"\n  }}\n}}\n",
        service.port
    );
    let Some((h, _repo)) = one_root_harness("", &main_tf).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("blocked: 1 connection"), "{reply}");
    assert_eq!(
        service.connections(),
        0,
        "the host service saw a connection"
    );
}

/// A root whose S3 backend (moto, on the host's 127.0.0.1) is not on the egress allowlist: the
/// backend's Go client dials loopback directly, the sandbox's loopback has no relay on that
/// port, and `init` fails with "connection refused". The comment says egress blocked, names
/// the endpoint (loopback: shown as it is) and `egress:`, not a configuration error.
async fn a_backend_endpoint_off_the_allowlist_is_egress_blocked(backend: Backend) {
    let moto = std::env::var("TFGATE_TEST_MOTO_URL").unwrap_or_default();
    let Some(endpoint) = moto
        .strip_prefix("http://")
        .map(|e| e.trim_end_matches('/'))
    else {
        return;
    };
    create_state_bucket().await;
    // No `egress:` for moto (the test policies' usual `test_network` would add it).
    let policy = "repos: [\"Codertocat/Hello-World\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/tfgate-plan\n  apply_role: arn:aws:iam::111111111111:role/tfgate-apply\n  providers: [\"tfgate/*\"]\nprojects:\n  - name: app\n    dir: infra/app\n";
    let key = format!("egress-{}.tfstate", uuid::Uuid::new_v4().simple());
    let main_tf = moto_root_tf(&key, "resource \"fake_thing\" \"a\" {\n  name = \"a\"\n}\n");
    let Some((h, _repo)) = policy_root_harness(backend, policy, &main_tf).await else {
        return;
    };
    let reply = h.comment(1, "/plan", "alice").await.join("\n");
    assert!(reply.contains("❌ failed"), "{reply}");
    assert!(reply.contains("| — |  | egress blocked |  |  |"), "{reply}");
    let advice = format!("`{endpoint}` is not on this project's egress allowlist: an admin can add it under `egress:`");
    assert!(reply.contains(&advice), "{reply}");
    assert!(!reply.contains("configuration error"), "{reply}");
    assert!(!reply.contains("RequestError"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn egress_blocked_backend_sqlite() {
    a_backend_endpoint_off_the_allowlist_is_egress_blocked(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn egress_blocked_backend_postgres() {
    a_backend_endpoint_off_the_allowlist_is_egress_blocked(Backend::Postgres).await;
}
