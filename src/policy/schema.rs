//! The admin policy file format, exactly as written in `policies/*.yaml`.
//!
//! Every struct rejects unknown keys. Semantic checks (globs, ARNs, cycles, …) live in
//! `validate.rs`; the resolved, ready-to-use form is [`crate::policy::RepoPolicy`].
//! `policies/README.md` documents every key; a test keeps the two in step.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub use super::schema_ops::{AdminsSpec, DriftDetectionSpec, PlanPolicyOwnersSpec, PlanPolicySpec};

/// One policy file: the rules for every repository matching `repos`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// Repositories governed by this file: globs over `owner/repo`, matched case-insensitively
    /// (`acme/*`, `acme/infra-*`, `acme/kukie`). When several files match a repository, the
    /// most specific pattern wins (see `PolicySet::for_repo`).
    pub repos: Vec<String>,
    /// Settings every project inherits unless it sets its own.
    #[serde(default)]
    pub defaults: ProjectDefaults,
    /// Terraform roots declared by the admin. They win over projects of the same name or
    /// dir+workspace in the repo's layout file.
    #[serde(default)]
    pub projects: Vec<ProjectPolicy>,
    /// Whether the repo's own `tfgate.yaml` may declare further projects (dir, workspace,
    /// depends_on, when_modified only; they inherit `defaults`). Default false.
    #[serde(default)]
    pub allow_repo_layout: bool,
    /// Directory globs (repo-relative) tfgate never runs in, whatever a layout says.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Who may plan and who may apply. Projects may override either side.
    #[serde(default)]
    pub permissions: Permissions,
    /// What must hold before `/apply` runs. Default `[approved, mergeable]`; `[]` means none.
    #[serde(default = "default_apply_requirements")]
    pub apply_requirements: Vec<ApplyRequirement>,
    /// Approving reviews needed by `approved`. Default 1.
    #[serde(default = "default_min_approvals")]
    pub min_approvals: u32,
    /// Checks that must have passed on the head commit (needed by `checks_passed`): a name,
    /// or `{name, app}` to accept only the check runs of that GitHub App (slug).
    #[serde(default)]
    pub required_checks: Vec<RequiredCheckSpec>,
    /// Base branches (globs) whose PRs may run commands. Default: the default branch only.
    #[serde(default)]
    pub base_branches: Vec<String>,
    /// Whether PRs from forks may run commands at all. Default false.
    #[serde(default)]
    pub allow_fork_prs: bool,
    /// Whether every PR gets a `tfgate/apply` check run that passes only when each affected
    /// root's plan of the head was applied or changes nothing. Default true.
    #[serde(default = "default_true")]
    pub require_apply_before_merge: bool,
    /// Whether the roots another PR's apply made stale are planned again at once (as
    /// `tfgate`), instead of only being marked out of date. Default false.
    #[serde(default)]
    pub replan_on_apply: bool,
    /// Whether a commenter the policy lets run no command gets one short reply. Default:
    /// yes on private repositories, no on public ones.
    #[serde(default)]
    pub reply_to_outsiders: Option<bool>,
    /// Commands one user may run per hour on the repository; `0` means no limit. Default 30.
    #[serde(default = "default_commands_per_hour")]
    pub commands_per_hour: u32,
    /// Independent roots of one `/plan` planned at once (also capped by the server's
    /// `--max-parallel-roots`); `1` plans them one after another. Default 4.
    #[serde(default = "default_parallel_plans")]
    pub parallel_plans: u32,
    /// Shared inputs fed to plans from outside the repository (fingerprinted for drift).
    #[serde(default)]
    pub inputs: Vec<InputSpec>,
    /// Extra regular expressions whose matches are redacted from everything posted.
    #[serde(default)]
    pub redact_patterns: Vec<String>,
    /// What to do when a shared input changed since the last apply. Default `block`.
    #[serde(default)]
    pub on_input_drift: OnInputDrift,
    /// Roles to read CloudTrail with, per AWS account (optional; used to name denied actions).
    #[serde(default)]
    pub cloudtrail: Option<CloudTrail>,
    /// Other repositories of the same installation whose Terraform modules roots may use
    /// (`git::https://github.com/acme/modules.git?ref=v1`): globs over `owner/repo`. `init`
    /// gets a read-only installation token scoped to exactly these. Default: none.
    #[serde(default)]
    pub module_repos: Vec<String>,
    /// Tokens for private Terraform registries, read by the server (never from the PR).
    #[serde(default)]
    pub registry_tokens: Vec<RegistryTokenSpec>,
    /// Folders ArgoCD or Flux deploy from on merge: every push to a PR touching the repository
    /// gets a `tfgate/deploy` check run previewing what merging would deploy or delete.
    #[serde(default)]
    pub gitops: Vec<GitopsSpec>,
    /// Scheduled drift detection on the default branch (`tfgate drift run` runs it by hand).
    #[serde(default)]
    pub drift_detection: Option<DriftDetectionSpec>,
    /// Who administers this file's repositories in the web UI (`/ui`): they see everything of
    /// them and may act (release locks, retry or cancel jobs, show raw logs).
    #[serde(default)]
    pub admins: AdminsSpec,
    /// Rego policy sets (conftest conventions) evaluated on every plan; see docs/policy.md.
    #[serde(default)]
    pub plan_policies: Vec<PlanPolicySpec>,
}

/// A folder merge deploys: `{path: deploy/apps/**, kind: argocd}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GitopsSpec {
    /// Files in the repository (a glob: `deploy/apps/**`).
    pub path: String,
    /// `argocd` or `flux`.
    pub kind: String,
    /// Who may accept what needs acknowledgement (`/ack-deploy`). Default
    /// `{min_permission: maintain}`.
    #[serde(default)]
    pub acknowledge: Option<AcknowledgeSpec>,
}

/// `acknowledge: {min_permission: maintain}` of a GitOps folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AcknowledgeSpec {
    /// The least GitHub permission on the repository that may `/ack-deploy`.
    pub min_permission: GitHubPermission,
}

/// A private registry's token: `{host: registry.acme.io, source: env:NAME}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryTokenSpec {
    /// The registry's host name, as in module and provider sources.
    pub host: String,
    /// Where the server reads the token: `env:NAME` or `file:PATH`.
    pub source: String,
}

pub(crate) fn default_apply_requirements() -> Vec<ApplyRequirement> {
    vec![ApplyRequirement::Approved, ApplyRequirement::Mergeable]
}

pub(crate) fn default_min_approvals() -> u32 {
    1
}

pub(crate) fn default_commands_per_hour() -> u32 {
    30
}

pub(crate) fn default_parallel_plans() -> u32 {
    4
}

/// Settings shared by all projects of a file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectDefaults {
    /// Terraform to run: a version (`1.9.8`) or an absolute binary path. Unset: the server's.
    pub terraform: Option<String>,
    /// A Terraform release installed on demand (`1.9.8`); instead of `terraform`.
    pub terraform_version: Option<String>,
    /// An OpenTofu release installed on demand (`1.8.1`); instead of `terraform`.
    pub opentofu_version: Option<String>,
    /// IAM role ARN assumed for `/plan`.
    pub plan_role: Option<String>,
    /// IAM role ARN assumed for `/apply`.
    pub apply_role: Option<String>,
    /// Session policy narrowing the assumed role: inline JSON or `file:PATH` on the server.
    pub session_policy: Option<String>,
    /// Assumed-role session length, 900..=43200 seconds (`3600`, `"1h"`). Default 3600.
    pub session_duration: Option<DurationSpec>,
    /// Terraform `-parallelism`. Default 10.
    pub parallelism: Option<u32>,
    /// Wall-clock limit of one Terraform run (`1800`, `"30m"`). Default 30 minutes.
    pub timeout: Option<DurationSpec>,
    /// Network access of the sandbox. Default `egress` (only the allowlist, through tfgate's
    /// proxy).
    pub network: Option<Network>,
    /// More `host:port` entries (`*.example.com:443` for subdomains) the sandbox may reach,
    /// added to the defaults (the regions' AWS endpoints, the Terraform registry). Projects
    /// add their own to these.
    pub egress: Option<Vec<String>>,
    /// AWS regions whose endpoints are allowlisted. Default: the server's `aws_region`.
    pub regions: Option<Vec<String>>,
    /// Provider sources `terraform init` may install (`hashicorp/aws`, `hashicorp/*`,
    /// `registry.terraform.io/tfgate/*`). Default `hashicorp/*`.
    pub providers: Option<Vec<String>>,
    /// Variable files every plan passes (`-var-file`), relative to the root; they must stay
    /// inside the repository.
    pub var_files: Option<Vec<String>>,
    /// `terraform init -backend-config`: a mapping of settings, or a file relative to the root.
    pub backend_config: Option<BackendConfig>,
    /// Terraform flags every plan passes, from the comment allowlist (`-refresh=false`,
    /// `-lock-timeout=5m`, …).
    pub plan_args: Option<Vec<String>>,
    /// Terraform flags every apply passes (only `-lock-timeout=`).
    pub apply_args: Option<Vec<String>>,
    /// Whether the first `/plan` creates a project's missing Terraform workspace. Default
    /// false: a missing workspace fails the root.
    pub create_workspace: Option<bool>,
}

/// One Terraform root declared by the admin.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectPolicy {
    /// Unique name (used by `-p` and `depends_on`). Default: `dir`, or `dir:workspace`.
    pub name: Option<String>,
    /// Repo-relative directory of the root.
    pub dir: String,
    /// Terraform workspace. Default `default`.
    pub workspace: Option<String>,
    /// See `defaults.terraform`.
    pub terraform: Option<String>,
    /// See `defaults.terraform_version`.
    pub terraform_version: Option<String>,
    /// See `defaults.opentofu_version`.
    pub opentofu_version: Option<String>,
    /// See `defaults.plan_role`.
    pub plan_role: Option<String>,
    /// See `defaults.apply_role`.
    pub apply_role: Option<String>,
    /// See `defaults.session_policy`.
    pub session_policy: Option<String>,
    /// See `defaults.session_duration`.
    pub session_duration: Option<DurationSpec>,
    /// See `defaults.parallelism` (a lower value spares a freshly created EKS API server).
    pub parallelism: Option<u32>,
    /// See `defaults.timeout`.
    pub timeout: Option<DurationSpec>,
    /// See `defaults.network`.
    pub network: Option<Network>,
    /// Added to `defaults.egress` for this project.
    pub egress: Option<Vec<String>>,
    /// See `defaults.regions` (replaces them).
    pub regions: Option<Vec<String>>,
    /// See `defaults.providers` (replaces them).
    pub providers: Option<Vec<String>>,
    /// See `defaults.var_files` (replaces them).
    pub var_files: Option<Vec<String>>,
    /// See `defaults.backend_config` (replaces it).
    pub backend_config: Option<BackendConfig>,
    /// See `defaults.plan_args` (replaces them).
    pub plan_args: Option<Vec<String>>,
    /// See `defaults.apply_args` (replaces them).
    pub apply_args: Option<Vec<String>>,
    /// See `defaults.create_workspace`.
    pub create_workspace: Option<bool>,
    /// Names of projects applied before this one when both are selected.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Whether a push plans this project automatically. Default true.
    pub autoplan: Option<bool>,
    /// Globs relative to `dir` whose changes affect this project.
    /// Default `**/*.tf`, `**/*.tf.json`, `**/*.tfvars`, `**/*.tfvars.json`, `.terraform.lock.hcl`.
    #[serde(default)]
    pub when_modified: Vec<String>,
    /// Whether `/apply` may apply this root. False for bootstrap roots: plan is allowed,
    /// apply is refused with "this root is applied by an admin, not by comment". Default true.
    pub comment_apply: Option<bool>,
    /// Names of shared `inputs` this root's plans receive.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Overrides of the file's `permissions` for this root (each side independently).
    pub permissions: Option<PermissionOverrides>,
}

/// Who may run which commands.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// Who may `/plan` (also `/unlock` and `/cancel`).
    #[serde(default)]
    pub plan: CommandPermission,
    /// Who may `/apply` (and `--accept-input` a shared-input change; also `/inputs`).
    #[serde(default)]
    pub apply: CommandPermission,
}

/// Per-project overrides; an unset side keeps the file's rule.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionOverrides {
    /// Replaces `permissions.plan` for this project.
    pub plan: Option<CommandPermission>,
    /// Replaces `permissions.apply` for this project.
    pub apply: Option<CommandPermission>,
}

/// The rule for one side (plan or apply).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommandPermission {
    /// Lowest GitHub permission on the repository (read < triage < write < maintain < admin).
    /// Always required. Default `write`.
    #[serde(default = "default_min_permission")]
    pub min_permission: GitHubPermission,
    /// GitHub logins allowed. When `users` or `teams` is non-empty, the commenter must also be
    /// listed here or belong to one of `teams` (either grants).
    #[serde(default)]
    pub users: Vec<String>,
    /// Team slugs of the repository owner's organisation (`platform`, `acme/platform`).
    #[serde(default)]
    pub teams: Vec<String>,
}

fn default_min_permission() -> GitHubPermission {
    GitHubPermission::Write
}

impl Default for CommandPermission {
    fn default() -> Self {
        CommandPermission {
            min_permission: GitHubPermission::Write,
            users: Vec::new(),
            teams: Vec::new(),
        }
    }
}

/// A user's permission on a repository, as GitHub reports it, ordered from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GitHubPermission {
    /// No access.
    None,
    Read,
    Triage,
    Write,
    Maintain,
    Admin,
}

impl fmt::Display for GitHubPermission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GitHubPermission::None => "no",
            GitHubPermission::Read => "read",
            GitHubPermission::Triage => "triage",
            GitHubPermission::Write => "write",
            GitHubPermission::Maintain => "maintain",
            GitHubPermission::Admin => "admin",
        })
    }
}

/// A condition `/apply` needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyRequirement {
    /// `min_approvals` approving reviews on the current head, each by a user with write access
    /// who is neither the PR author nor a bot, and not withdrawn by a later review.
    Approved,
    /// GitHub reports the PR mergeable (no conflicts).
    Mergeable,
    /// The head contains the latest base branch commit.
    UpToDate,
    /// Every `required_checks` name passed on the head commit.
    ChecksPassed,
}

impl ApplyRequirement {
    /// The name used in policy files and replies.
    pub fn name(self) -> &'static str {
        match self {
            ApplyRequirement::Approved => "approved",
            ApplyRequirement::Mergeable => "mergeable",
            ApplyRequirement::UpToDate => "up_to_date",
            ApplyRequirement::ChecksPassed => "checks_passed",
        }
    }
}

/// One entry of `required_checks` as written: a bare name, or a name and an app.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum RequiredCheckSpec {
    Name(String),
    Scoped(RequiredCheck),
}

/// A check that must pass: its name and, when set, the slug of the GitHub App producing it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RequiredCheck {
    /// The check run's name (`ci/test`).
    pub name: String,
    /// The slug of the GitHub App that must have produced it (`github-actions`). Unset: any.
    #[serde(default)]
    pub app: Option<String>,
}

impl RequiredCheckSpec {
    pub fn check(&self) -> RequiredCheck {
        match self {
            RequiredCheckSpec::Name(name) => RequiredCheck {
                name: name.clone(),
                app: None,
            },
            RequiredCheckSpec::Scoped(check) => check.clone(),
        }
    }
}

/// A shared input: a value from outside the repository given to Terraform as a variable.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// Name projects use to refer to it (`ADMIN_CIDRS`).
    pub name: String,
    /// Terraform variable it is passed as (`admin_cidrs`, sent as `TF_VAR_admin_cidrs`).
    pub variable: String,
    /// Where the server reads it: `env:NAME` or `file:PATH`.
    pub source: String,
}

/// What happens when a shared input changed since the root's last apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnInputDrift {
    /// Refuse `/apply` until the change is in a PR of its own.
    #[default]
    Block,
    /// Refuse `/apply` unless it names the input: `/apply --accept-input NAME`.
    Confirm,
    /// Apply, with a warning in the result comment.
    Warn,
}

/// `backend_config`: settings (`bucket: tfstate-prod`) or a file relative to the root.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum BackendConfig {
    File(String),
    Values(BTreeMap<String, String>),
}

/// Network access of the sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// A private network whose only way out is tfgate's egress proxy: the allowlist
    /// (`egress`, `regions`), never the host, its metadata endpoint or private addresses.
    #[default]
    Egress,
    /// The host's network: everything the host reaches. Honoured only when the server runs
    /// with `--allow-host-network` (else the run uses `egress`, with a note).
    Shared,
    /// No network at all.
    None,
}

/// CloudTrail access, for naming the exact denied action after a failure.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CloudTrail {
    /// AWS account id (12 digits) → IAM role ARN allowed to call `cloudtrail:LookupEvents`.
    #[serde(default)]
    pub read_roles: BTreeMap<String, String>,
}

/// A duration: whole seconds (`900`) or a number with `s`, `m` or `h` (`"15m"`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum DurationSpec {
    Seconds(u64),
    Text(String),
}

impl DurationSpec {
    /// The duration in seconds, or `None` when the text is not `<number>[s|m|h]`.
    pub fn seconds(&self) -> Option<u64> {
        match self {
            DurationSpec::Seconds(s) => Some(*s),
            DurationSpec::Text(text) => {
                let text = text.trim();
                let (number, unit) = match text.char_indices().last()? {
                    (i, 's') => (&text[..i], 1),
                    (i, 'm') => (&text[..i], 60),
                    (i, 'h') => (&text[..i], 3600),
                    _ => (text, 1),
                };
                number.trim().parse::<u64>().ok()?.checked_mul(unit)
            }
        }
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod schema_tests;

fn default_true() -> bool {
    true
}
