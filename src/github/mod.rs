//! GitHub: App authentication (JWT → installation tokens, cached by octocrab until 30 s before
//! expiry), the REST calls tfgate makes, and the App-manifest setup flow. Thin: no decisions.

pub mod api;
pub mod app;
pub mod facts;
pub mod lists;
pub mod manifest;

pub use app::{AppCredentials, GitHubApp};
