//! A local Terraform release mirror over loopback, in HashiCorp's layout: the Terraform 1.0.3
//! binary the tests already use, zipped, with a `SHA256SUMS` signed by the test key
//! (`tests/fixtures/releases/test-key/`, made with `gpg --quick-gen-key … ed25519 sign`).
//! Requests are counted by wiremock, so a test can say how often the archive was fetched.

#![allow(dead_code)]

use std::io::{Cursor, Write};
use std::sync::OnceLock;

use pgp::composed::{Deserializable, DetachedSignature, SignedSecretKey};
use pgp::crypto::hash::HashAlgorithm;
use pgp::types::Password;
use sha2::{Digest, Sha256};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub const VERSION: &str = "1.0.3";
pub const TEST_PUBLIC_KEY: &str = include_str!("../fixtures/releases/test-key/public.asc");
const TEST_SECRET_KEY: &str = include_str!("../fixtures/releases/test-key/secret.asc");

/// What the mirror gets wrong on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    /// The archive served is not the one `SHA256SUMS` lists.
    TamperedArchive,
    /// `SHA256SUMS` lists the served archive, and the signature is over other bytes.
    BadSignature,
    /// No signature file at all.
    NoSignature,
}

pub struct ReleaseMirror {
    pub server: MockServer,
}

/// The zipped `.tools/bin/terraform` (stored, not compressed: quick to build), made once.
pub fn archive() -> &'static [u8] {
    static ZIP: OnceLock<Vec<u8>> = OnceLock::new();
    ZIP.get_or_init(|| {
        let binary = std::fs::read(crate::support::tools_dir().join("bin/terraform")).unwrap();
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .unix_permissions(0o755)
            .large_file(binary.len() > u32::MAX as usize);
        zip.start_file("terraform", options).unwrap();
        zip.write_all(&binary).unwrap();
        zip.finish().unwrap().into_inner()
    })
}

/// A detached binary signature over `data` by the test key.
pub fn sign(data: &[u8]) -> Vec<u8> {
    let (key, _) = SignedSecretKey::from_armor_single(Cursor::new(TEST_SECRET_KEY)).unwrap();
    let sig = DetachedSignature::sign_binary_data(
        rand::thread_rng(),
        &key.primary_key,
        &Password::empty(),
        HashAlgorithm::Sha256,
        data,
    )
    .unwrap();
    let mut out = Vec::new();
    pgp::ser::Serialize::to_writer(&sig, &mut out).unwrap();
    out
}

impl ReleaseMirror {
    pub async fn start(fault: Fault) -> ReleaseMirror {
        let server = MockServer::start().await;
        let zip = archive().to_vec();
        let name = format!("terraform_{VERSION}_linux_amd64.zip");
        let sums = format!("{}  {name}\n", hex::encode(Sha256::digest(&zip)));
        let served_zip = match fault {
            Fault::TamperedArchive => {
                let mut z = zip.clone();
                let at = z.len() / 2;
                z[at] ^= 0x01;
                z
            }
            _ => zip,
        };
        let signature = match fault {
            Fault::BadSignature => sign(b"some other SHA256SUMS"),
            _ => sign(sums.as_bytes()),
        };
        let dir = format!("/terraform/{VERSION}");
        let serve = |file: String, body: Vec<u8>| {
            Mock::given(method("GET"))
                .and(path(format!("{dir}/{file}")))
                .respond_with(ResponseTemplate::new(200).set_body_bytes(body))
        };
        serve(name, served_zip).mount(&server).await;
        serve(format!("terraform_{VERSION}_SHA256SUMS"), sums.into_bytes())
            .mount(&server)
            .await;
        if fault != Fault::NoSignature {
            serve(format!("terraform_{VERSION}_SHA256SUMS.sig"), signature)
                .mount(&server)
                .await;
        }
        ReleaseMirror { server }
    }

    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// How many times the archive was requested.
    pub async fn archive_downloads(&self) -> usize {
        let requests = self.server.received_requests().await.unwrap_or_default();
        requests
            .iter()
            .filter(|r| r.url.path().ends_with(".zip"))
            .count()
    }
}
