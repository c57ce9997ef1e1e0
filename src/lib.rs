//! tfgate: a GitHub App that runs Terraform from pull-request comments, in a sandbox, under a
//! narrowly scoped role, and answers with per-resource results.
//!
//! Layers, bottom to top; a folder of `src/` imports only folders below it (`tests/layers.rs`
//! checks this, and that no files of one folder import each other in a loop):
//! - `model`: plain types every layer may use; imports nothing of the crate.
//! - pure core (no I/O; decisions live here; order in `tests/layers.rs`): `redact`, `crypto`,
//!   `command`, `terraform`, `classify`, `egress`, `tool_release`, `enrich`,
//!   `drift_detection`, `project`, `plan_policy`, `policy`, `gitops`, `input_drift`, `run_planner`.
//! - `render`: view models worded by the templates.
//! - effect shell (thin; carries decisions out), bottom to top:
//!   - `sandbox` (runs a process under limits), `aws` (credentials, CloudTrail reads),
//!   - `config` (the server's settings and the checks of each value),
//!   - `db` (every SQL statement, one file per table), `metrics`,
//!   - `github` (the API client), `checkout` (a commit's files, fetched through `github`),
//!     `provider_cache`, `tfrun` (Terraform in the sandbox),
//!   - `jobs` (job types and the runner over the `db::jobs` queue),
//!   - `policy_repo` (the admin repository's policy files), `webhook` (signature, events,
//!     intake),
//!   - `state` (what the server holds: config, database, GitHub App, readiness report),
//!   - `doctor` (readiness checks), `worker` (the job handlers),
//!   - `cli` (the operator commands), `ui` (web pages; shows what `cli` prints), `http`
//!     (routes), `server` (starts it all), `logging`.
//!
//! `docs/architecture.md` maps each decision to the function that makes it.

pub mod aws;
pub mod checkout;
pub mod classify;
pub mod cli;
pub mod command;
pub mod config;
pub mod crypto;
pub mod db;
pub mod doctor;
pub mod drift_detection;
pub mod egress;
pub mod enrich;
pub mod github;
pub mod gitops;
pub mod http;
pub mod input_drift;
pub mod jobs;
pub mod logging;
pub mod metrics;
pub mod model;
pub mod plan_policy;
pub mod policy;
pub mod policy_repo;
pub mod project;
pub mod provider_cache;
pub mod redact;
pub mod render;
pub mod repo_layout;
pub mod run_planner;
pub mod sandbox;
pub mod server;
pub mod state;
pub mod terraform;
pub mod tfrun;
pub mod tool_release;
pub mod ui;
pub mod webhook;
pub mod worker;
