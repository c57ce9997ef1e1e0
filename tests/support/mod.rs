//! Scenario harness: the real router and database, a fake GitHub over HTTP, signed deliveries
//! in, posted comments out.
//!
//! By concept: `harness.rs` (the [`Harness`]: start, deliver, read back), `pr_actions.rs`
//! (comments, pushes and reviews on the fake PR), `jobs.rs` (running the queue),
//! `backends.rs` (SQLite and PostgreSQL, the `scenario!` macro), `webhooks.rs` (delivery
//! builders), `policies.rs` (test policies), `terraform_roots.rs` (real Terraform roots and
//! moto), `real_server.rs` (a real `tfgate serve`), `fake_github.rs` (the fake GitHub).

#![allow(dead_code)]

mod backends;
pub mod fake_github;
mod harness;
pub mod jobs;
mod policies;
mod pr_actions;
mod real_server;
mod terraform_roots;
mod webhooks;

// Every test binary uses a part of the harness: re-exports the one at hand leaves unused are fine.
#[allow(unused_imports)]
pub use {backends::*, harness::*, policies::*, real_server::*, terraform_roots::*, webhooks::*};

pub const SECRET: &str = "test-webhook-secret";
/// A fixed sealing key (base64 of 32 bytes) for harnesses on PostgreSQL.
pub const TEST_SEAL_KEY: &str = "dGZnYXRlLXRlc3Qtc2VhbC1rZXktMzItYnl0ZXMhISE=";
