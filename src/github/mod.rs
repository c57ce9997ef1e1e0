//! GitHub: App authentication (JWT → installation tokens, cached by octocrab until 30 s before
//! expiry), the REST calls tfgate makes, and the App-manifest setup flow. Thin: no decisions,
//! except `retry.rs` (pure): what an answer of GitHub means and what to do next.

pub mod api;
pub mod app;
pub mod check_runs;
pub mod credentials_store;
pub mod facts;
pub mod http;
pub mod issues;
pub mod lists;
pub mod manifest;
pub mod rate_limit_gate;
pub mod retry;

pub use app::{AppCredentials, GitHubApp};
pub use http::{CallPolicy, InstallationClient};
pub use retry::{retry_delay, GitHubError};
