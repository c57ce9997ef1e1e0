//! Plain types that every layer may use: references to repositories and commits, job payloads,
//! run records, view models. This module imports nothing else of the crate (`tests/layers.rs`
//! checks), so it can sit below the pure core and the effect shell alike.

mod deny;
pub mod gitops;
pub mod job;
pub mod marker;
mod repo;
mod resource_limit;
mod sha;
pub mod view;

pub use deny::DenyKind;
pub use repo::RepoRef;
pub use resource_limit::ResourceLimit;
pub use sha::{short_sha, CommitSha};
