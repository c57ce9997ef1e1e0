//! Projects (Terraform roots) of a repository: which ones a PR affects, in which order they
//! are applied, where an interrupted apply resumes; the repo's own layout file is
//! read in `repo_layout`.
//!
//! Pure: data in, data out. The caller reads files and parses `.tf` sources.

mod affected;
mod module_graph;
mod modules;
mod order;
mod paths;
mod spec;

pub use affected::{
    affected_projects, is_project_affected, ModuleGraph, PrChanges, DEFAULT_WHEN_MODIFIED,
};
pub use module_graph::{build_module_graph, is_module_source_file};
pub use modules::{find_local_module_sources, find_required_versions};
pub(crate) use order::find_cycle;
pub use order::{order_by_dependencies, resume_point, ApplyStatus, OrderError, ResumePoint};
pub use paths::{join_relative, normalize_dir, path_is_under};
pub use spec::{ProjectId, ProjectSpec};
