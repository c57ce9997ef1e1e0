//! The `tfgate policy …` subcommands and their dispatch (`check`, `explain`, `test`,
//! `import-atlantis`).

use std::path::PathBuf;

use anyhow::Result;

use super::plan_policy::{test_cmd, TestArgs};
use super::policy::{check, explain_cmd, import_atlantis, ExplainArgs};
use crate::config::Config;

#[derive(clap::Subcommand)]
// Parsed once per process: the size of its largest variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum PolicyCmd {
    /// Validate every policy file; prints `file:line:col: message` per problem, exits 1 on any.
    Check {
        /// Policy directory (default: the configured TFGATE_POLICY_DIR).
        dir: Option<PathBuf>,
    },
    /// Print the decision for one command and the rule behind it (exit 0 allow, 3 deny), and
    /// the plan policy sets that apply to the project (or to every project of the policy).
    Explain {
        #[arg(long)]
        repo: String,
        #[arg(long)]
        user: String,
        /// The user's permission on the repository.
        #[arg(long, default_value = "write")]
        permission: String,
        /// Team slugs the user belongs to (repeatable).
        #[arg(long = "team")]
        teams: Vec<String>,
        #[arg(long)]
        command: String,
        #[arg(short = 'p', long)]
        project: Option<String>,
        #[arg(long)]
        dir: Option<String>,
        #[arg(long)]
        workspace: Option<String>,
        /// JSON file with the PR's facts (author, head_sha, reviews, check_runs, changed_files…).
        #[arg(long)]
        pr_facts: Option<PathBuf>,
        /// The repository's `tfgate.yaml` (as on its base branch), merged when the policy has
        /// `allow_repo_layout`.
        #[arg(long)]
        layout: Option<PathBuf>,
    },
    /// Evaluate one plan policy set on a plan JSON (`terraform show -json PLANFILE`) and print
    /// each failure (`FAIL`), warning (`WARN`) and error, then a summary line.
    ///
    /// The set is looked up in the policy directory (`--policy-dir`, default
    /// TFGATE_POLICY_DIR or ./policies): in any policy file, or in the one covering `--repo`.
    /// Exit 1 when a `deny` set fails (a failure, or an error: sets fail closed); 0 when it
    /// passes and for a `warn` set whatever it finds; 2 when the set is unknown, the plan is
    /// not JSON or the policy directory has problems. Messages are printed as the rules write
    /// them, not redacted (this runs on the admin's own machine; tfgate redacts them on a PR).
    Test {
        /// The set's `name` in `plan_policies`.
        set: String,
        /// The plan JSON: the output of `terraform show -json PLANFILE`.
        plan: PathBuf,
        /// Only the policy file covering this repository (`OWNER/NAME`).
        #[arg(long)]
        repo: Option<String>,
        /// Also print, on stderr, the time taken reading the plan and evaluating the set.
        #[arg(long)]
        timing: bool,
    },
    /// Turn an Atlantis repo config into a tfgate layout and policy skeleton.
    ImportAtlantis { file: PathBuf },
}

/// Run one `tfgate policy` subcommand; the exit code.
pub fn run(config: &Config, command: PolicyCmd) -> Result<i32> {
    match command {
        PolicyCmd::Check { dir } => check(dir.as_deref().unwrap_or(&config.policy_dir)),
        PolicyCmd::Explain {
            repo,
            user,
            permission,
            teams,
            command,
            project,
            dir,
            workspace,
            pr_facts,
            layout,
        } => explain_cmd(ExplainArgs {
            dir: &config.policy_dir,
            repo: &repo,
            user: &user,
            permission: &permission,
            teams,
            command: &command,
            project,
            target_dir: dir,
            workspace,
            pr_facts: pr_facts.as_deref(),
            layout: layout.as_deref(),
        }),
        PolicyCmd::Test {
            set,
            plan,
            repo,
            timing,
        } => test_cmd(TestArgs {
            dir: &config.policy_dir,
            set: &set,
            plan: &plan,
            repo: repo.as_deref(),
            timing,
        }),
        PolicyCmd::ImportAtlantis { file } => import_atlantis(&file),
    }
}
