//! The sandbox environment: built from an allowlist, never from the server's own environment
//! (which holds the App key path, webhook secret, database URL).

use std::collections::BTreeMap;

use super::TerraformSetup;
use crate::sandbox::SandboxMode;

/// Variables a run may pass in besides tfgate's own: AWS credentials and region, and
/// Terraform input variables (`TF_VAR_*`, used for shared inputs).
pub fn allowed_run_var(name: &str) -> bool {
    matches!(
        name,
        "AWS_ACCESS_KEY_ID"
            | "AWS_SECRET_ACCESS_KEY"
            | "AWS_SESSION_TOKEN"
            | "AWS_REGION"
            | "AWS_DEFAULT_REGION"
            | "AWS_ENDPOINT_URL"
            | "AWS_ENDPOINT_URL_STS"
    ) || (name.starts_with("TF_VAR_") && name.len() > 7)
        || super::git_auth::is_git_auth_var(name)
}

/// The whole environment of a sandboxed Terraform process, in the run's `workspace`.
pub fn sandbox_env(
    setup: &TerraformSetup,
    run_env: &BTreeMap<String, String>,
    workspace: &str,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into());
    env.insert("CHECKPOINT_DISABLE".into(), "1".into());
    env.insert("TF_IN_AUTOMATION".into(), "1".into());
    env.insert("TF_INPUT".into(), "0".into());
    env.insert("LANG".into(), "C.UTF-8".into());
    if setup.mode == SandboxMode::Bwrap {
        // Terraform talks to each provider over a Unix socket in `/tmp`, which the sandbox makes
        // a private tmpfs: no process outside this sandbox can reach it, so go-plugin's mutual
        // TLS on that channel (a fresh certificate per provider start, ~70 ms each, several
        // starts per plan) protects nothing here. Without the sandbox it stays on.
        env.insert("TF_DISABLE_PLUGIN_TLS".into(), "1".into());
    }
    for (k, v) in run_env {
        if allowed_run_var(k) {
            env.insert(k.clone(), v.clone());
        } else {
            tracing::warn!(variable = %k, "dropped a variable outside the sandbox allowlist");
        }
    }
    // The policy's workspace, never the run's or the repository's (`.terraform/environment`).
    env.insert("TF_WORKSPACE".into(), workspace.into());
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> TerraformSetup {
        TerraformSetup {
            terraform_bin: "/opt/terraform".into(),
            admin_cli_config: None,
            provider_mirror: None,
            extra_ro_binds: vec![],
            provider_cache: None,
            mode: SandboxMode::Bwrap,
            relay_bin: "/opt/tfgate".into(),
            runtime_dir: "/var/lib/tfgate/work/runtime".into(),
            host_addrs: vec![],
            limits: crate::sandbox::Limits::default(),
            output_cap_bytes: 1 << 20,
        }
    }

    #[test]
    fn only_allowlisted_variables_pass() {
        let mut run = BTreeMap::new();
        for (k, v) in [
            ("AWS_ACCESS_KEY_ID", "ASIA..."),
            ("TF_VAR_admin_cidrs", "[]"),
            ("DATABASE_URL", "postgres://secret"),
            ("TFGATE_WEBHOOK_SECRET", "s"),
            ("TF_VAR_", "x"),
            ("LD_PRELOAD", "/evil.so"),
        ] {
            run.insert(k.to_string(), v.to_string());
        }
        let env = sandbox_env(&setup(), &run, "default");
        assert!(env.contains_key("AWS_ACCESS_KEY_ID") && env.contains_key("TF_VAR_admin_cidrs"));
        for banned in [
            "DATABASE_URL",
            "TFGATE_WEBHOOK_SECRET",
            "TF_VAR_",
            "LD_PRELOAD",
        ] {
            assert!(!env.contains_key(banned), "{banned} must not pass");
        }
        assert_eq!(env["CHECKPOINT_DISABLE"], "1");
    }

    #[test]
    fn plugin_tls_is_off_only_behind_the_sandboxes_private_tmp() {
        let env = sandbox_env(&setup(), &BTreeMap::new(), "default");
        assert_eq!(env["TF_DISABLE_PLUGIN_TLS"], "1");
        let unsandboxed = TerraformSetup {
            mode: SandboxMode::None,
            ..setup()
        };
        let env = sandbox_env(&unsandboxed, &BTreeMap::new(), "default");
        assert!(!env.contains_key("TF_DISABLE_PLUGIN_TLS"));
    }

    #[test]
    fn the_workspace_is_tfgates_alone() {
        let run = BTreeMap::from([("TF_WORKSPACE".to_string(), "production".to_string())]);
        assert!(!allowed_run_var("TF_WORKSPACE"));
        for workspace in ["default", "staging"] {
            let env = sandbox_env(&setup(), &run, workspace);
            assert_eq!(env["TF_WORKSPACE"], workspace);
        }
    }
}
