//! Atlantis custom workflows → the per-project settings tfgate has: `var_files`,
//! `backend_config`, `plan_args` and `apply_args`.
//!
//! Only the `extra_args` of the built-in `init`, `plan` and `apply` steps can be mapped:
//! `-var-file` → `var_files`, `-backend-config` → `backend_config` (one file, or `key=value`
//! settings), and flags on the comment allowlist → `plan_args`/`apply_args`. A `run`, `env` or
//! `multienv` step, any other flag, and the `import`, `state_rm` and `policy_check` stages are
//! reported, one warning each.

use std::collections::BTreeMap;

use serde_yaml::Value;

use crate::command::policy_terraform_arg;

/// What one workflow maps to. Empty when it maps to nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkflowSettings {
    pub var_files: Vec<String>,
    /// `-backend-config=FILE` (tfgate takes one file, or settings, not both).
    pub backend_file: Option<String>,
    /// `-backend-config=key=value`.
    pub backend_values: BTreeMap<String, String>,
    pub plan_args: Vec<String>,
    pub apply_args: Vec<String>,
}

/// Every workflow of `workflows:` by name, with one warning per thing it could not map.
pub fn import_workflows(
    workflows: Option<&Value>,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, WorkflowSettings> {
    let mut out = BTreeMap::new();
    let Some(map) = workflows.and_then(Value::as_mapping) else {
        return out;
    };
    for (name, stages) in map {
        let name = super::s(name).unwrap_or_default();
        let mut settings = WorkflowSettings::default();
        let label = format!("workflow `{name}`");
        for (stage, body) in stages.as_mapping().into_iter().flatten() {
            let stage = super::s(stage).unwrap_or_default();
            match stage.as_str() {
                "plan" | "apply" => {
                    for step in steps(body) {
                        import_step(&label, &stage, step, &mut settings, warnings);
                    }
                }
                other => warnings.push(format!(
                    "{label}: the `{other}` stage has no equivalent; tfgate runs only plan and apply"
                )),
            }
        }
        out.insert(name, settings);
    }
    out
}

fn steps(stage: &Value) -> impl Iterator<Item = &Value> {
    stage
        .get("steps")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
}

/// One step of the `plan` or `apply` stage.
fn import_step(
    label: &str,
    stage: &str,
    step: &Value,
    settings: &mut WorkflowSettings,
    warnings: &mut Vec<String>,
) {
    let (kind, body) = match step {
        Value::String(kind) => (kind.clone(), None),
        Value::Mapping(m) if m.len() == 1 => {
            let (k, v) = m.iter().next().expect("one entry");
            (super::s(k).unwrap_or_default(), Some(v))
        }
        _ => {
            warnings.push(format!(
                "{label}: a {stage} step that is not a step name or a one-key mapping; dropped"
            ));
            return;
        }
    };
    let extra_args: Vec<String> = body
        .map(|b| super::strings(b.get("extra_args")))
        .unwrap_or_default();
    match kind.as_str() {
        "init" => init_args(label, &extra_args, settings, warnings),
        "plan" => plan_args(label, &extra_args, settings, warnings),
        "apply" => flag_args(label, "apply", &extra_args, &mut settings.apply_args, warnings),
        "show" => {}
        "run" => warnings.push(format!(
            "{label}: {stage} step `run: {}` has no equivalent; tfgate runs only Terraform in its sandbox",
            body.and_then(run_text).unwrap_or_default()
        )),
        "env" | "multienv" => warnings.push(format!(
            "{label}: {stage} step `{kind}` has no equivalent; give secrets to Terraform as shared inputs (`inputs:`)"
        )),
        other => warnings.push(format!(
            "{label}: {stage} step `{other}` has no equivalent; dropped"
        )),
    }
}

/// A `run` step's command: a string, or the `command` of the mapping form.
fn run_text(body: &Value) -> Option<String> {
    super::s(body).or_else(|| body.get("command").and_then(super::s))
}

/// `flag value` written as two list items becomes `flag=value`.
fn joined(extra_args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut items = extra_args.iter();
    while let Some(item) = items.next() {
        let takes_value = matches!(
            item.as_str(),
            "-var"
                | "-var-file"
                | "--var-file"
                | "-backend-config"
                | "--backend-config"
                | "-lock-timeout"
        );
        match (takes_value, items.as_slice().first()) {
            (true, Some(value)) => {
                out.push(format!("{item}={value}"));
                items.next();
            }
            _ => out.push(item.clone()),
        }
    }
    out
}

/// The value of `-name=value` (one or two leading dashes).
fn flag_value<'a>(arg: &'a str, name: &str) -> Option<&'a str> {
    arg.trim_start_matches('-')
        .strip_prefix(name)?
        .strip_prefix('=')
        .filter(|_| arg.starts_with('-'))
}

fn init_args(
    label: &str,
    extra_args: &[String],
    settings: &mut WorkflowSettings,
    warnings: &mut Vec<String>,
) {
    for arg in joined(extra_args) {
        let Some(value) = flag_value(&arg, "backend-config") else {
            warnings.push(format!(
                "{label}: init flag `{arg}` has no equivalent; tfgate runs `init` with its own flags"
            ));
            continue;
        };
        if value.contains('$') {
            warnings.push(format!(
                "{label}: init `{arg}`: variables are not expanded; set `backend_config` by hand"
            ));
            continue;
        }
        match value.split_once('=') {
            Some((key, setting)) => {
                settings
                    .backend_values
                    .insert(key.to_string(), setting.to_string());
            }
            None if settings.backend_file.is_none() => {
                settings.backend_file = Some(value.to_string());
            }
            None => warnings.push(format!(
                "{label}: init `{arg}`: tfgate takes one backend config file; dropped"
            )),
        }
    }
    if settings.backend_file.is_some() && !settings.backend_values.is_empty() {
        let keys: Vec<&str> = settings.backend_values.keys().map(String::as_str).collect();
        warnings.push(format!(
            "{label}: tfgate takes a backend config file or settings, not both; the file is kept, the settings ({}) are dropped",
            keys.join(", ")
        ));
        settings.backend_values.clear();
    }
}

fn plan_args(
    label: &str,
    extra_args: &[String],
    settings: &mut WorkflowSettings,
    warnings: &mut Vec<String>,
) {
    let mut flags = Vec::new();
    for arg in joined(extra_args) {
        match flag_value(&arg, "var-file") {
            Some(path) if path.contains('$') => warnings.push(format!(
                "{label}: plan `{arg}`: variables are not expanded; list the file in `var_files` by hand"
            )),
            Some(path) => settings.var_files.push(path.to_string()),
            None => flags.push(arg),
        }
    }
    flag_args(label, "plan", &flags, &mut settings.plan_args, warnings);
}

/// Flags on the comment allowlist are kept (as Terraform takes them); the rest are reported.
fn flag_args(
    label: &str,
    step: &str,
    args: &[String],
    kept: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    for arg in joined(args) {
        if arg.starts_with("-var=") {
            warnings.push(format!(
                "{label}: {step} `{arg}`: variables on the command line have no equivalent; use a var file or a shared input"
            ));
            continue;
        }
        match policy_terraform_arg(&arg, step == "apply") {
            Ok(flag) => kept.push(flag),
            Err(why) => warnings.push(format!(
                "{label}: {step} flag `{arg}` is not allowed in tfgate ({why}); dropped"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn import(yaml: &str) -> (BTreeMap<String, WorkflowSettings>, Vec<String>) {
        let value: Value = serde_yaml::from_str(yaml).unwrap();
        let mut warnings = Vec::new();
        let out = import_workflows(value.get("workflows"), &mut warnings);
        (out, warnings)
    }

    #[test]
    fn extra_args_map_to_settings() {
        let (out, warnings) = import(
            "workflows:\n  prod:\n    plan:\n      steps:\n        - init:\n            extra_args: [\"-backend-config=env/prod.backend.hcl\"]\n        - plan:\n            extra_args: [\"-var-file=env/prod.tfvars\", \"-var-file\", \"common.tfvars\", \"-lock-timeout=5m\", \"-refresh=false\"]\n    apply:\n      steps:\n        - apply:\n            extra_args: [\"-lock-timeout=5m\"]\n",
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let prod = &out["prod"];
        assert_eq!(prod.var_files, ["env/prod.tfvars", "common.tfvars"]);
        assert_eq!(prod.backend_file.as_deref(), Some("env/prod.backend.hcl"));
        assert_eq!(prod.plan_args, ["-lock-timeout=5m", "-refresh=false"]);
        assert_eq!(prod.apply_args, ["-lock-timeout=5m"]);
    }

    #[test]
    fn backend_settings_and_what_cannot_be_mapped() {
        let (out, warnings) = import(
            "workflows:\n  w:\n    plan:\n      steps:\n        - env: {name: TF_LOG, value: debug}\n        - init:\n            extra_args: [\"-backend-config=bucket=tfstate-prod\", \"-backend-config=key=eks.tfstate\", \"-upgrade\"]\n        - run: terragrunt plan\n        - plan:\n            extra_args: [\"-var\", \"x=1\", \"-var-file=$WORKSPACE.tfvars\", \"-parallelism=3\"]\n    apply:\n      steps:\n        - apply:\n            extra_args: [\"-target=aws_s3_bucket.b\"]\n    policy_check:\n      steps: [show, policy_check]\n",
        );
        let w = &out["w"];
        assert_eq!(
            w.backend_values,
            BTreeMap::from([
                ("bucket".to_string(), "tfstate-prod".to_string()),
                ("key".to_string(), "eks.tfstate".to_string())
            ])
        );
        assert!(w.var_files.is_empty() && w.plan_args.is_empty() && w.apply_args.is_empty());
        let expected = [
            "workflow `w`: plan step `env` has no equivalent",
            "workflow `w`: init flag `-upgrade` has no equivalent",
            "workflow `w`: plan step `run: terragrunt plan` has no equivalent",
            "workflow `w`: plan `-var-file=$WORKSPACE.tfvars`: variables are not expanded",
            "workflow `w`: plan `-var=x=1`: variables on the command line",
            "workflow `w`: plan flag `-parallelism=3` is not allowed",
            "workflow `w`: apply flag `-target=aws_s3_bucket.b` is not allowed",
            "workflow `w`: the `policy_check` stage has no equivalent",
        ];
        assert_eq!(warnings.len(), expected.len(), "{warnings:#?}");
        for (got, want) in warnings.iter().zip(expected) {
            assert!(got.starts_with(want), "{got:?} should start with {want:?}");
        }
    }

    #[test]
    fn one_backend_file_wins_over_settings() {
        let (out, warnings) = import(
            "workflows:\n  w:\n    plan:\n      steps:\n        - init:\n            extra_args: [\"-backend-config=a.hcl\", \"-backend-config=b.hcl\", \"-backend-config=key=x\"]\n",
        );
        assert_eq!(out["w"].backend_file.as_deref(), Some("a.hcl"));
        assert!(out["w"].backend_values.is_empty());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("one backend config file"));
        assert!(warnings[1].contains("settings (key) are dropped"));
    }

    #[test]
    fn flag_values_need_a_dash_and_the_exact_name() {
        assert_eq!(flag_value("-var-file=a", "var-file"), Some("a"));
        assert_eq!(flag_value("--var-file=a", "var-file"), Some("a"));
        assert_eq!(flag_value("var-file=a", "var-file"), None);
        assert_eq!(flag_value("-var-files=a", "var-file"), None);
        assert_eq!(
            joined(&["-var-file".into(), "a".into(), "-lock".into()]),
            ["-var-file=a", "-lock"]
        );
    }
}
