//! The resolved policy for a repository: defaults applied, values parsed and validated.

use super::schema::{
    ApplyRequirement, CloudTrail, CommandPermission, Network, OnInputDrift, Permissions,
    ProjectDefaults, RequiredCheck,
};
use crate::project::{ProjectId, ProjectSpec};
use serde::Serialize;

/// Session length when none is set (seconds).
pub const DEFAULT_SESSION_DURATION: u32 = 3600;
/// Terraform's own default `-parallelism`.
pub const DEFAULT_PARALLELISM: u32 = 10;
/// Run time limit when none is set (seconds).
pub const DEFAULT_TIMEOUT: u64 = 1800;

/// Everything tfgate needs to know about one repository's rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepoPolicy {
    /// The policy file this came from (for audit lines and `explain`).
    pub file: String,
    /// The `repos` patterns of that file.
    pub repos: Vec<String>,
    /// Projects: the policy's own, plus the repo layout's once merged (`project::merge_layout`).
    pub projects: Vec<ResolvedProject>,
    /// The file's `defaults` (layout projects inherit them).
    pub defaults: ProjectDefaults,
    pub allow_repo_layout: bool,
    /// Directory globs never run (normalised, repo-relative).
    pub exclude: Vec<String>,
    pub permissions: Permissions,
    pub apply_requirements: Vec<ApplyRequirement>,
    pub min_approvals: u32,
    pub required_checks: Vec<RequiredCheck>,
    /// Base branch globs whose PRs may run commands; empty: the default branch only.
    pub base_branches: Vec<String>,
    pub allow_fork_prs: bool,
    /// Post the `tfgate/apply` check run (and tell a PR merged with unapplied plans).
    pub require_apply_before_merge: bool,
    /// Plan again the roots another PR's apply made stale (`run_planner::stale_plans`).
    pub replan_on_apply: bool,
    /// `None`: reply on private repositories only.
    pub reply_to_outsiders: Option<bool>,
    /// Per user and hour; `0` means no limit.
    pub commands_per_hour: u32,
    /// Independent roots of one `/plan` planned at once (`parallel_plans`).
    pub parallel_plans: u32,
    pub inputs: Vec<Input>,
    /// Validated regular expressions (compile them with `regex::Regex::new`).
    pub redact_patterns: Vec<String>,
    pub on_input_drift: OnInputDrift,
    pub cloudtrail: Option<CloudTrail>,
    /// Globs over `owner/repo` of module repositories `init` may read with a scoped token.
    pub module_repos: Vec<String>,
    pub registry_tokens: Vec<RegistryToken>,
    /// Folders ArgoCD or Flux deploy from (`gitops:`).
    pub gitops: Vec<GitopsFolder>,
    /// Scheduled drift detection (`drift_detection:`).
    pub drift_detection: Option<DriftDetection>,
    /// Who administers these repositories in the web UI (`admins:`).
    pub admins: super::schema::AdminsSpec,
    /// Rego policy sets evaluated on every plan (`plan_policies:`).
    pub plan_policies: Vec<crate::model::PlanPolicySet>,
    /// The compiled form of each set, by name, made once when the policy directory is loaded
    /// (`load_policies`); empty when only this file was loaded (`load_policy`). Use
    /// [`RepoPolicy::compiled_plan_policy`].
    #[serde(skip)]
    pub compiled_plan_policies: Vec<crate::plan_policy::CompiledSet>,
}

/// When the default branch's roots are checked for drift, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftDetection {
    /// A valid five-field cron expression (UTC).
    pub schedule: String,
    /// Project names, in the file's order.
    pub projects: Vec<String>,
    /// IAM user names may be shown in "who changed it" (`show_principals: true`).
    pub show_principals: bool,
}

/// A folder merge deploys, and which tool deploys it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GitopsFolder {
    pub path: String,
    pub tool: crate::model::gitops::Tool,
    /// The least permission that may `/ack-deploy` (default `maintain`).
    pub acknowledge_min_permission: super::GitHubPermission,
}

/// A private registry's token and where the server reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegistryToken {
    pub host: String,
    pub source: InputSource,
}

impl RepoPolicy {
    /// The compiled set of the plan policy set `name`, compiled when the policy version in
    /// force was loaded. `None` (not compiled, e.g. a policy loaded without its directory) must
    /// be treated as a failed set: fail closed.
    pub fn compiled_plan_policy(&self, name: &str) -> Option<&crate::plan_policy::CompiledSet> {
        self.compiled_plan_policies
            .iter()
            .find(|c| c.set().name == name)
    }

    /// The plan policy sets that apply to `project`, in the file's order.
    pub fn plan_policies_for(&self, project: &str) -> Vec<&crate::model::PlanPolicySet> {
        crate::plan_policy::sets_for_project(&self.plan_policies, project)
    }

    /// The project with this name.
    pub fn project(&self, name: &str) -> Option<&ResolvedProject> {
        self.projects.iter().find(|p| p.spec.id.as_str() == name)
    }

    /// The project at this dir and workspace (dir normalised by the caller or not).
    pub fn project_at(&self, dir: &str, workspace: &str) -> Option<&ResolvedProject> {
        let dir = crate::project::normalize_dir(dir)?;
        self.projects
            .iter()
            .find(|p| p.spec.dir == dir && p.spec.workspace == workspace)
    }

    /// The specs of all projects, for the `project` functions.
    pub fn specs(&self) -> Vec<ProjectSpec> {
        self.projects.iter().map(|p| p.spec.clone()).collect()
    }

    /// Whether `dir` matches one of the `exclude` globs (the dir itself or a parent of it).
    pub fn is_excluded(&self, dir: &str) -> bool {
        crate::project::normalize_dir(dir).is_some_and(|dir| exclude_matches(&self.exclude, &dir))
    }

    /// Whether commands may run on a PR into `base` (`default_branch`: the repository's;
    /// empty only in hand-written facts, where the default-branch rule is not checked).
    pub fn allows_base(&self, base: &str, default_branch: &str) -> bool {
        if self.base_branches.is_empty() {
            return default_branch.is_empty() || base == default_branch;
        }
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        self.base_branches
            .iter()
            .filter_map(|g| glob::Pattern::new(g).ok())
            .any(|pattern| pattern.matches_with(base, opts))
    }

    /// `required_checks` entries that name no app: any app's check of that name passes.
    pub fn checks_without_app(&self) -> Vec<&str> {
        self.required_checks
            .iter()
            .filter(|c| c.app.is_none())
            .map(|c| c.name.as_str())
            .collect()
    }

    /// The shared input with this name.
    pub fn input(&self, name: &str) -> Option<&Input> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

/// Where a project was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectOrigin {
    /// In the server-side policy file.
    Policy,
    /// In the repository's `tfgate.yaml`, allowed by `allow_repo_layout`.
    RepoLayout,
}

/// One project with every setting decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedProject {
    /// Name, dir, workspace, depends_on, when_modified.
    pub spec: ProjectSpec,
    /// `None`: the server's default Terraform.
    pub terraform: Option<TerraformSpec>,
    pub plan_role: String,
    /// `None` only when `comment_apply` is false.
    pub apply_role: Option<String>,
    pub session_policy: Option<SessionPolicy>,
    pub session_duration_seconds: u32,
    pub parallelism: u32,
    pub timeout_seconds: u64,
    pub network: Network,
    /// The policy's own egress entries (defaults', then the project's), parsed.
    pub egress: Vec<crate::egress::EgressRule>,
    /// AWS regions whose endpoints are allowlisted; empty: the server's region.
    pub regions: Vec<String>,
    /// Provider source patterns `init` may install, as full addresses
    /// (`registry.terraform.io/hashicorp/*`).
    pub providers: Vec<String>,
    /// `-var-file=` paths (relative to the root) every plan passes.
    pub var_files: Vec<String>,
    /// `-backend-config=` values (`key=value`, or a file relative to the root) for `init`.
    pub backend_config: Vec<String>,
    /// Terraform flags the policy adds to every plan / apply (before the comment's).
    pub plan_args: Vec<String>,
    pub apply_args: Vec<String>,
    /// Whether a plan creates the project's workspace when it does not exist yet.
    pub create_workspace: bool,
    pub autoplan: bool,
    pub comment_apply: bool,
    /// Names of shared inputs (all present in `RepoPolicy::inputs`).
    pub inputs: Vec<String>,
    /// Effective permissions (file's, with this project's overrides).
    pub permissions: Permissions,
    pub origin: ProjectOrigin,
}

impl ResolvedProject {
    pub fn id(&self) -> &ProjectId {
        &self.spec.id
    }

    /// The rule for a side: `apply == true` for apply-level commands.
    pub fn permission_for(&self, apply: bool) -> &CommandPermission {
        if apply {
            &self.permissions.apply
        } else {
            &self.permissions.plan
        }
    }
}

/// Which Terraform to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TerraformSpec {
    /// A Terraform or OpenTofu release, installed on demand (`1.9.8`).
    Release(crate::tool_release::Release),
    /// An absolute path to a binary on the server.
    Binary(String),
}

/// A session policy for AssumeRole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionPolicy {
    /// Inline JSON (validated as a JSON object).
    Inline(String),
    /// A file on the server to read at run time.
    File(String),
}

/// A shared input, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Input {
    pub name: String,
    pub variable: String,
    pub source: InputSource,
}

/// Where a shared input's value comes from, on the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// `env:NAME`
    Env(String),
    /// `file:PATH`
    File(String),
}

impl InputSource {
    /// Parses `env:NAME` / `file:PATH`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(name) = text.strip_prefix("env:") {
            let valid = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            return valid.then(|| InputSource::Env(name.to_string()));
        }
        if let Some(path) = text.strip_prefix("file:") {
            return (!path.trim().is_empty()).then(|| InputSource::File(path.to_string()));
        }
        None
    }
}

/// Whether normalised `dir`, or one of its parent dirs, matches one of the `exclude` globs.
pub(crate) fn exclude_matches(exclude: &[String], dir: &str) -> bool {
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let mut candidates = vec![dir];
    let mut current = dir;
    while let Some(i) = current.rfind('/') {
        current = &current[..i];
        candidates.push(current);
    }
    exclude
        .iter()
        .filter_map(|g| glob::Pattern::new(g).ok())
        .any(|pattern| candidates.iter().any(|c| pattern.matches_with(c, opts)))
}
