//! Checkout of a pull request at an exact commit: the tarball is fetched from the GitHub API
//! with the installation token in a header only, and extracted by a strict extractor into a
//! fresh per-run working directory that is removed afterwards.
//!
//! Typical use in the worker:
//! ```ignore
//! let workdir = Workdir::create(&config.work_dir, run_id)?;
//! let info = fetch_tarball(&http, api, owner, repo, &head_sha, &token,
//!                          &workdir.path().join("repo"), ExtractLimits::default()).await?;
//! // ... run terraform in info.root; the directory goes away when `workdir` drops.
//! ```

mod archive_path;
mod capped_reader;
mod error;
mod extract;
mod fetch;
mod host_read;
mod limits;
mod provider_overrides;
pub mod repo_tree;
mod workdir;

#[cfg(test)]
mod tests;

pub use error::{CheckoutError, ExtractError};
pub use extract::{extract_tarball, CheckoutInfo};
pub use fetch::{fetch_tarball, is_commit_sha, tarball_request, tarball_url, with_retries};
pub use host_read::{read_no_follow, read_text_no_follow, read_tree, WalkLimits};
pub use limits::ExtractLimits;
pub use provider_overrides::{is_provider_override, remove_provider_overrides};
pub use workdir::{workdir_for_run, Workdir};
