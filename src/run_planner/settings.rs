//! Per root and command: which AWS role, which network, which Terraform binary and flags.
//! Pure; the worker assumes the role and starts the sandbox.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::egress::{default_rules, Allowlist, RunNetwork};
use crate::model::job::RunCommand;
use crate::model::view::RunNote;
use crate::policy::{Network as PolicyNetwork, ResolvedProject, TerraformSpec};
use crate::tool_release::{Release, ToolChoice};

/// How one root's Terraform runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunProfile {
    /// The role assumed for the run: the plan role for `plan`; for `apply` the apply role
    /// (or the plan role where the policy gives none).
    pub role: String,
    pub network: RunNetwork,
    /// Said under the run when the network is not the policy's egress allowlist.
    pub network_note: Option<RunNote>,
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

/// What the server adds to a run's network decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerNetwork {
    /// The server's AWS region: the allowlisted region when the policy names none.
    pub aws_region: String,
    /// `--allow-host-network`: whether `network: shared` is honoured.
    pub allow_host_network: bool,
    /// Whether providers come from the server's mirror (else directly, through the proxy).
    pub providers_from_mirror: bool,
}

/// The run's network: the policy's choice, with `shared` only where the server allows it,
/// and the allowlist = defaults for the project's regions + the policy's `egress`.
pub fn run_network(
    project: &ResolvedProject,
    server: &ServerNetwork,
) -> (RunNetwork, Option<RunNote>) {
    let name = project.spec.id.0.clone();
    match project.network {
        PolicyNetwork::None => (RunNetwork::None, None),
        PolicyNetwork::Shared if server.allow_host_network => (
            RunNetwork::Shared,
            Some(RunNote::HostNetwork { project: name }),
        ),
        PolicyNetwork::Shared => (
            RunNetwork::Egress(allowlist(project, server)),
            Some(RunNote::HostNetworkRefused { project: name }),
        ),
        PolicyNetwork::Egress => (RunNetwork::Egress(allowlist(project, server)), None),
    }
}

fn allowlist(project: &ResolvedProject, server: &ServerNetwork) -> Allowlist {
    let regions = if project.regions.is_empty() {
        vec![server.aws_region.clone()]
    } else {
        project.regions.clone()
    };
    let mut rules = default_rules(&regions, !server.providers_from_mirror);
    rules.extend(project.egress.iter().cloned());
    Allowlist { rules }
}

pub fn run_profile(
    command: RunCommand,
    project: &ResolvedProject,
    terraform_args: &[String],
    server: &ServerNetwork,
) -> RunProfile {
    let (network, network_note) = run_network(project, server);
    // The policy's flags first, then the command's (the parser lets only `-lock-timeout=`
    // through for `/apply`, and policy validation likewise).
    let (role, policy_args) = match command {
        RunCommand::Plan => (project.plan_role.clone(), &project.plan_args),
        RunCommand::Apply => (
            project
                .apply_role
                .clone()
                .unwrap_or_else(|| project.plan_role.clone()),
            &project.apply_args,
        ),
    };
    let extra_args = policy_args.iter().chain(terraform_args).cloned().collect();
    RunProfile {
        role,
        network,
        network_note,
        timeout: Duration::from_secs(project.timeout_seconds),
        parallelism: Some(project.parallelism),
        extra_args,
        workspace: project.spec.workspace.clone(),
        create_workspace: command == RunCommand::Plan && project.create_workspace,
    }
}

/// The project's Terraform: a path the policy names (`/opt/tofu/bin/tofu`), a release the
/// policy names (installed on demand), else the server's default (a release when the server
/// names one, else its binary).
pub fn tool_choice(
    project: &ResolvedProject,
    default_binary: &Path,
    default_release: Option<&Release>,
) -> ToolChoice {
    match (&project.terraform, default_release) {
        (Some(TerraformSpec::Binary(path)), _) => ToolChoice::Binary(PathBuf::from(path)),
        (Some(TerraformSpec::Release(r)), _) => ToolChoice::Release(r.clone()),
        (None, Some(r)) => ToolChoice::Release(r.clone()),
        (None, None) => ToolChoice::Binary(default_binary.to_path_buf()),
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

    const POLICY: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\nprojects:\n  - name: app\n    dir: infra/app\n  - name: offline\n    dir: infra/offline\n    network: none\n    terraform: \"1.9.8\"\n  - name: tofu\n    dir: infra/tofu\n    terraform: /opt/tofu/bin/tofu\n  - name: otofu\n    dir: infra/otofu\n    opentofu_version: 1.8.5\n";

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
        let plan = run_profile(RunCommand::Plan, &project("app"), &args, &server());
        assert!(plan.role.ends_with("role/plan"));
        assert_eq!(plan.extra_args, args);
        // The policy's `parallelism` (default 10) goes with every command.
        assert_eq!(plan.parallelism, Some(10));
        let mut p = project("app");
        p.parallelism = 4;
        assert_eq!(
            run_profile(RunCommand::Apply, &p, &[], &server()).parallelism,
            Some(4)
        );
        let lock = vec!["-lock-timeout=30s".to_string()];
        let apply = run_profile(RunCommand::Apply, &project("app"), &lock, &server());
        assert!(apply.role.ends_with("role/apply"));
        assert_eq!(apply.extra_args, lock);
    }

    #[test]
    fn the_policys_flags_come_before_the_commands() {
        let mut p = project("app");
        p.plan_args = vec!["-refresh=false".into()];
        p.apply_args = vec!["-lock-timeout=5m".into()];
        let comment = vec!["-target=a.b".to_string()];
        let plan = run_profile(RunCommand::Plan, &p, &comment, &server());
        assert_eq!(plan.extra_args, ["-refresh=false", "-target=a.b"]);
        let apply = run_profile(
            RunCommand::Apply,
            &p,
            &["-lock-timeout=30s".into()],
            &server(),
        );
        assert_eq!(apply.extra_args, ["-lock-timeout=5m", "-lock-timeout=30s"]);
    }

    #[test]
    fn apply_without_an_apply_role_uses_the_plan_role() {
        let mut p = project("app");
        p.apply_role = None;
        assert!(run_profile(RunCommand::Apply, &p, &[], &server())
            .role
            .ends_with("role/plan"));
    }

    fn server() -> ServerNetwork {
        ServerNetwork {
            aws_region: "eu-west-1".into(),
            allow_host_network: false,
            providers_from_mirror: true,
        }
    }

    #[test]
    fn network_follows_the_policy_and_the_server() {
        const NETWORKS: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n  egress: [\"git.example.com:443\"]\nprojects:\n  - name: app\n    dir: app\n    egress: [\"127.0.0.1:9000\"]\n  - name: host\n    dir: host\n    network: shared\n  - name: offline\n    dir: offline\n    network: none\n  - name: us\n    dir: us\n    regions: [us-east-2]\n";
        let policy = load_policy("p.yaml", NETWORKS).unwrap();
        let allowed = |name: &str, server: &ServerNetwork, host: &str, port: u16| match run_network(
            policy.project(name).unwrap(),
            server,
        )
        .0
        {
            RunNetwork::Egress(list) => list.matches(host, port).is_some(),
            other => panic!("{name}: {other:?}"),
        };
        // (project, host, port, allowed) under the default server
        let table = [
            ("app", "ec2.eu-west-1.amazonaws.com", 443, true),
            ("app", "ec2.us-east-2.amazonaws.com", 443, false),
            ("app", "git.example.com", 443, true),
            ("app", "127.0.0.1", 9000, true),
            ("app", "releases.hashicorp.com", 443, false),
            ("us", "ec2.us-east-2.amazonaws.com", 443, true),
            ("us", "ec2.eu-west-1.amazonaws.com", 443, false),
            ("us", "git.example.com", 443, true),
            ("us", "127.0.0.1", 9000, false),
            ("host", "sts.amazonaws.com", 443, true),
        ];
        for (name, host, port, expected) in table {
            assert_eq!(
                allowed(name, &server(), host, port),
                expected,
                "{name} {host}:{port}"
            );
        }
        let direct = ServerNetwork {
            providers_from_mirror: false,
            ..server()
        };
        assert!(allowed("app", &direct, "releases.hashicorp.com", 443));

        let (net, note) = run_network(policy.project("host").unwrap(), &server());
        assert!(matches!(net, RunNetwork::Egress(_)));
        assert!(matches!(note, Some(RunNote::HostNetworkRefused { .. })));
        let trusting = ServerNetwork {
            allow_host_network: true,
            ..server()
        };
        let (net, note) = run_network(policy.project("host").unwrap(), &trusting);
        assert_eq!(net, RunNetwork::Shared);
        assert!(matches!(note, Some(RunNote::HostNetwork { .. })));
        let (net, note) = run_network(policy.project("offline").unwrap(), &trusting);
        assert_eq!((net, note), (RunNetwork::None, None));
        assert_eq!(
            run_network(policy.project("app").unwrap(), &trusting).1,
            None
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
            let profile = run_profile(command, policy.project(name).unwrap(), &[], &server());
            assert_eq!(profile.workspace, workspace, "{name} {command:?}");
            assert_eq!(profile.create_workspace, create, "{name} {command:?}");
        }
    }

    #[test]
    fn create_workspace_is_inherited_from_defaults_and_overridden_per_project() {
        const INHERIT: &str = "repos: [\"o/r\"]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n  create_workspace: true\nprojects:\n  - name: dev\n    dir: tf\n    workspace: dev\n  - name: prod\n    dir: tf\n    workspace: prod\n    create_workspace: false\n";
        let policy = load_policy("p.yaml", INHERIT).unwrap();
        let create = |name| {
            run_profile(
                RunCommand::Plan,
                policy.project(name).unwrap(),
                &[],
                &server(),
            )
        };
        assert!(create("dev").create_workspace);
        assert!(!create("prod").create_workspace);
    }

    #[test]
    fn tool_choice_table() {
        use crate::tool_release::{release, Tool};
        let default = Path::new("/usr/bin/terraform");
        let tf = |v| ToolChoice::Release(release(Tool::Terraform, v).unwrap());
        let server = release(Tool::OpenTofu, "1.8.1").unwrap();
        let bin = |p: &str| ToolChoice::Binary(PathBuf::from(p));
        assert_eq!(
            tool_choice(&project("app"), default, None),
            bin("/usr/bin/terraform")
        );
        assert_eq!(
            tool_choice(&project("app"), default, Some(&server)),
            ToolChoice::Release(server.clone())
        );
        assert_eq!(tool_choice(&project("offline"), default, None), tf("1.9.8"));
        assert_eq!(
            tool_choice(&project("offline"), default, Some(&server)),
            tf("1.9.8")
        );
        assert_eq!(
            tool_choice(&project("tofu"), default, Some(&server)),
            bin("/opt/tofu/bin/tofu")
        );
        assert_eq!(
            tool_choice(&project("otofu"), default, None),
            ToolChoice::Release(release(Tool::OpenTofu, "1.8.5").unwrap())
        );
    }
}
