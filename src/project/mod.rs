//! Projects (Terraform roots) of a repository: which ones a PR affects, in which order they
//! are applied, where an interrupted apply resumes, and the repo's own layout file.
//!
//! Pure: data in, data out. The caller reads files and parses `.tf` sources.

mod affected;
mod effective;
mod layout;
mod merge;
mod module_graph;
mod modules;
mod order;
mod paths;
mod spec;

pub use affected::{
    affected_projects, is_project_affected, ModuleGraph, PrChanges, DEFAULT_WHEN_MODIFIED,
};
pub use effective::{layout_problems_notice, policy_with_base_layout};
pub use layout::{parse_layout, LayoutProject, RepoLayout, LAYOUT_FILE_NAME};
pub use merge::{merge_layout, LayoutMerge};
pub use module_graph::{build_module_graph, is_module_source_file};
pub use modules::{find_local_module_sources, find_required_versions};
pub(crate) use order::find_cycle;
pub use order::{order_by_dependencies, resume_point, ApplyStatus, OrderError, ResumePoint};
pub use paths::{join_relative, normalize_dir, path_is_under};
pub use spec::{ProjectId, ProjectSpec};
