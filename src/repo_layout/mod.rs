//! The repository's own layout file (`tfgate.yaml`): parsed, checked with the policy's
//! validator and merged into the policy's projects. Pure. It sits above `policy` and `project`
//! (it uses both; neither uses it).

mod effective;
mod layout;
mod merge;

pub use effective::{layout_problems_notice, policy_with_base_layout};
pub use layout::{parse_layout, LayoutProject, RepoLayout, LAYOUT_FILE_NAME};
pub use merge::{merge_layout, LayoutMerge};
