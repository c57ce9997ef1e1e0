//! The argument lists of Terraform's commands (pure): the policy's settings, then the
//! command's flags.

use std::path::Path;

use super::RunSettings;

pub(super) fn chdir(root: &str) -> String {
    format!("-chdir={}", if root.is_empty() { "." } else { root })
}

/// The arguments of `plan` (pure): the policy's `-parallelism` and `-var-file`s, then the
/// extra flags (the policy's `plan_args`, then the command's). The plan is saved to
/// `plan_file`, an absolute path outside the workdir.
pub fn plan_args(root: &str, settings: &RunSettings, plan_file: &Path) -> Vec<String> {
    let mut args = vec![
        chdir(root),
        "plan".into(),
        "-json".into(),
        "-input=false".into(),
        format!("-out={}", plan_file.display()),
    ];
    if let Some(p) = settings.parallelism {
        args.push(format!("-parallelism={p}"));
    }
    args.extend(settings.var_files.iter().map(|f| format!("-var-file={f}")));
    args.extend(settings.extra_args.iter().cloned());
    args
}

/// The arguments of `apply` of the saved plan at `plan_file` (pure). Only `-lock-timeout=`
/// reaches an apply's extra flags (the parser refuses the rest for `/apply`).
pub fn apply_args(root: &str, settings: &RunSettings, plan_file: &Path) -> Vec<String> {
    let mut args = vec![
        chdir(root),
        "apply".into(),
        "-json".into(),
        "-input=false".into(),
    ];
    if let Some(p) = settings.parallelism {
        args.push(format!("-parallelism={p}"));
    }
    args.extend(settings.extra_args.iter().cloned());
    args.push(plan_file.display().to_string());
    args
}

/// The arguments of `init` (pure): the policy's `-backend-config`s.
pub fn init_args(root: &str, settings: &RunSettings) -> Vec<String> {
    let mut args = vec![
        chdir(root),
        "init".into(),
        "-input=false".into(),
        "-no-color".into(),
    ];
    args.extend(
        settings
            .backend_config
            .iter()
            .map(|b| format!("-backend-config={b}")),
    );
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policys_parallelism_and_the_commands_flags_reach_terraform() {
        let settings = RunSettings {
            parallelism: Some(4),
            extra_args: vec!["-target=fake_thing.a".into()],
            ..Default::default()
        };
        assert_eq!(
            plan_args(
                "infra/eks",
                &settings,
                Path::new("/w/runtime/plan-1/tfgate.tfplan")
            ),
            [
                "-chdir=infra/eks",
                "plan",
                "-json",
                "-input=false",
                "-out=/w/runtime/plan-1/tfgate.tfplan",
                "-parallelism=4",
                "-target=fake_thing.a"
            ]
        );
        let apply = RunSettings {
            parallelism: Some(2),
            extra_args: vec!["-lock-timeout=30s".into()],
            ..Default::default()
        };
        assert_eq!(
            apply_args("", &apply, Path::new("/w/runtime/plan-2/tfgate.tfplan")),
            [
                "-chdir=.",
                "apply",
                "-json",
                "-input=false",
                "-parallelism=2",
                "-lock-timeout=30s",
                "/w/runtime/plan-2/tfgate.tfplan"
            ]
        );
        let unset = RunSettings::default();
        assert!(!plan_args("x", &unset, Path::new("/p"))
            .iter()
            .any(|a| a.starts_with("-parallelism")));
    }
}
