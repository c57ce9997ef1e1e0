//! Per root and command: which AWS role, which network, which Terraform binary and flags.
//! Pure; the worker assumes the role and starts the sandbox.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::jobs::RunCommand;
use crate::policy::{Network as PolicyNetwork, ResolvedProject, TerraformSpec};
use crate::sandbox::Network;

/// How one root's Terraform runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunProfile {
    /// The role assumed for the run: the plan role for `plan`; for `apply` the apply role
    /// (or the plan role where the policy gives none).
    pub role: String,
    pub network: Network,
    pub timeout: Duration,
    pub parallelism: Option<u32>,
    /// The command's allowlisted Terraform flags (for an apply, only `-lock-timeout=`).
    pub extra_args: Vec<String>,
    /// The Terraform workspace every step of the run selects.
    pub workspace: String,
    /// Whether a missing workspace is created: only by a plan whose policy allows it (an
    /// apply applies a plan made in a workspace that existed).
    pub create_workspace: bool,
}

pub fn run_profile(
    command: RunCommand,
    project: &ResolvedProject,
    terraform_args: &[String],
) -> RunProfile {
    let (role, extra_args) = match command {
        RunCommand::Plan => (project.plan_role.clone(), terraform_args.to_vec()),
        RunCommand::Apply => (
            project
                .apply_role
                .clone()
                .unwrap_or_else(|| project.plan_role.clone()),
            // The parser lets only `-lock-timeout=` through for `/apply`.
            terraform_args.to_vec(),
        ),
    };
    RunProfile {
        role,
        network: match project.network {
            PolicyNetwork::None => Network::None,
            PolicyNetwork::Shared => Network::Shared,
        },
        timeout: Duration::from_secs(project.timeout_seconds),
        parallelism: Some(project.parallelism),
        extra_args,
        workspace: project.spec.workspace.clone(),
        create_workspace: command == RunCommand::Plan && project.create_workspace,
    }
}

/// The project's Terraform binary: the server's default, a path the policy names
/// (`/opt/tofu/bin/tofu`), or a version under `DATA_DIR/terraform/<version>/terraform`.
pub fn terraform_binary(project: &ResolvedProject, default: &Path, data_dir: &Path) -> PathBuf {
    match &project.terraform {
        None => default.to_path_buf(),
        Some(TerraformSpec::Binary(path)) => PathBuf::from(path),
        Some(TerraformSpec::Version(v)) => data_dir.join("terraform").join(v).join("terraform"),
    }
}

/// The STS session tags of a run.
pub fn session_tags<'a>(
    repo: &'a str,
    pr: &'a str,
    project: &'a str,
) -> [(&'static str, &'a str); 3] {
    [("repo", repo), ("pr", pr), ("project", project)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: app\n    dir: infra/app\n  - name: offline\n    dir: infra/offline\n    network: none\n    terraform: \"1.9.8\"\n  - name: tofu\n    dir: infra/tofu\n    terraform: /opt/tofu/bin/tofu\n";

    fn project(name: &str) -> ResolvedProject {
        load_policy("p.yaml", POLICY)
            .unwrap()
            .project(name)
            .unwrap()
            .clone()
    }

    #[test]
    fn role_and_flags_follow_the_command() {
        let args = vec!["-target=a.b".to_string()];
        let plan = run_profile(RunCommand::Plan, &project("app"), &args);
        assert!(plan.role.ends_with("role/plan"));
        assert_eq!(plan.extra_args, args);
        let lock = vec!["-lock-timeout=30s".to_string()];
        let apply = run_profile(RunCommand::Apply, &project("app"), &lock);
        assert!(apply.role.ends_with("role/apply"));
        assert_eq!(apply.extra_args, lock);
    }

    #[test]
    fn apply_without_an_apply_role_uses_the_plan_role() {
        let mut p = project("app");
        p.apply_role = None;
        assert!(run_profile(RunCommand::Apply, &p, &[])
            .role
            .ends_with("role/plan"));
    }

    #[test]
    fn network_follows_the_policy() {
        assert_eq!(
            run_profile(RunCommand::Plan, &project("app"), &[]).network,
            Network::Shared
        );
        assert_eq!(
            run_profile(RunCommand::Plan, &project("offline"), &[]).network,
            Network::None
        );
    }

    #[test]
    fn workspace_and_its_creation_follow_the_policy_and_command() {
        const WORKSPACES: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: root\n    dir: tf\n  - name: staging\n    dir: tf\n    workspace: staging\n    create_workspace: true\n  - name: production\n    dir: tf\n    workspace: production\n";
        let policy = load_policy("p.yaml", WORKSPACES).unwrap();
        // (project, command, workspace, create_workspace)
        let table = [
            ("root", RunCommand::Plan, "default", false),
            ("root", RunCommand::Apply, "default", false),
            ("staging", RunCommand::Plan, "staging", true),
            ("staging", RunCommand::Apply, "staging", false),
            ("production", RunCommand::Plan, "production", false),
            ("production", RunCommand::Apply, "production", false),
        ];
        for (name, command, workspace, create) in table {
            let profile = run_profile(command, policy.project(name).unwrap(), &[]);
            assert_eq!(profile.workspace, workspace, "{name} {command:?}");
            assert_eq!(profile.create_workspace, create, "{name} {command:?}");
        }
    }

    #[test]
    fn create_workspace_is_inherited_from_defaults_and_overridden_per_project() {
        const INHERIT: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n  create_workspace: true\nprojects:\n  - name: dev\n    dir: tf\n    workspace: dev\n  - name: prod\n    dir: tf\n    workspace: prod\n    create_workspace: false\n";
        let policy = load_policy("p.yaml", INHERIT).unwrap();
        let create = |name| run_profile(RunCommand::Plan, policy.project(name).unwrap(), &[]);
        assert!(create("dev").create_workspace);
        assert!(!create("prod").create_workspace);
    }

    #[test]
    fn terraform_binary_table() {
        let default = Path::new("/usr/bin/terraform");
        let data = Path::new("/data");
        assert_eq!(terraform_binary(&project("app"), default, data), default);
        assert_eq!(
            terraform_binary(&project("offline"), default, data),
            Path::new("/data/terraform/1.9.8/terraform")
        );
        assert_eq!(
            terraform_binary(&project("tofu"), default, data),
            Path::new("/opt/tofu/bin/tofu")
        );
    }
}
