//! tfgate: a GitHub App that runs Terraform from pull-request comments, in a sandbox, under a
//! narrowly scoped role, and answers with per-resource results.
//!
//! Pure core (no I/O; decisions live here): `command`, `policy` (but `policy::store`),
//! `project`, `run_planner`, `terraform`, `classify`, `redact`, `input_drift`, `drift_detection`, `enrich`, `render`,
//! `webhook::event`, `webhook::signature`, the types of `jobs`.
//! Effect shell (thin; carries decisions out): `http`, `webhook::intake`, `jobs::queue`,
//! `jobs::runner`, `worker`, `github`, `db`, `sandbox`, `tfrun`, `checkout`, `aws`, `crypto`,
//! `config`, `state`, `server`, `cli`, `logging`, `metrics`.
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
