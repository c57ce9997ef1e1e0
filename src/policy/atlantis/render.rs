//! Rendering an import as YAML: the repository layout and the policy skeleton.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::workflow::WorkflowSettings;
use super::Project;

/// A YAML scalar: plain when obviously safe, otherwise a JSON (= YAML double-quoted) string.
fn scalar(text: &str) -> String {
    let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        );
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
    }
}

fn list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|i| scalar(i))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Where the project is and what it depends on (the fields a layout has).
fn project_head(out: &mut String, p: &Project) {
    // Unnamed Atlantis projects keep tfgate's derived name (dir, or dir:workspace).
    match &p.name {
        Some(name) => {
            let _ = writeln!(out, "  - name: {}", scalar(name));
            let _ = writeln!(out, "    dir: {}", scalar(&p.dir));
        }
        None => {
            let _ = writeln!(out, "  - dir: {}", scalar(&p.dir));
        }
    }
    if p.workspace != "default" {
        let _ = writeln!(out, "    workspace: {}", scalar(&p.workspace));
    }
    if !p.depends_on.is_empty() {
        let _ = writeln!(out, "    depends_on: {}", list(&p.depends_on));
    }
    if !p.when_modified.is_empty() {
        let _ = writeln!(out, "    when_modified: {}", list(&p.when_modified));
    }
}

/// The repository's `tfgate.yaml`: the projects the policy does not declare.
pub(super) fn layout(projects: &[Project]) -> String {
    let mut out = String::from("# tfgate.yaml — imported from atlantis.yaml. Where the roots are; nothing else.\nprojects:\n");
    let in_layout: Vec<&Project> = projects.iter().filter(|p| !p.in_policy).collect();
    if in_layout.is_empty() {
        out = out.replace("projects:\n", "projects: []\n");
    }
    for p in in_layout {
        project_head(&mut out, p);
    }
    out
}

/// The workflow settings of `settings` that differ from `base`, at `indent`.
fn settings_lines(
    out: &mut String,
    indent: &str,
    settings: &WorkflowSettings,
    base: &WorkflowSettings,
) {
    if settings.var_files != base.var_files {
        let _ = writeln!(out, "{indent}var_files: {}", list(&settings.var_files));
    }
    if (&settings.backend_file, &settings.backend_values)
        != (&base.backend_file, &base.backend_values)
    {
        let value = match &settings.backend_file {
            Some(file) => scalar(file),
            None => {
                let pairs: Vec<String> = settings
                    .backend_values
                    .iter()
                    .map(|(k, v)| format!("{}: {}", scalar(k), scalar(v)))
                    .collect();
                format!("{{{}}}", pairs.join(", "))
            }
        };
        let _ = writeln!(out, "{indent}backend_config: {value}");
    }
    if settings.plan_args != base.plan_args {
        let _ = writeln!(out, "{indent}plan_args: {}", list(&settings.plan_args));
    }
    if settings.apply_args != base.apply_args {
        let _ = writeln!(out, "{indent}apply_args: {}", list(&settings.apply_args));
    }
}

/// Projects whose settings the layout cannot carry.
fn policy_projects(
    out: &mut String,
    projects: &[Project],
    terraform: Option<&str>,
    defaults: &WorkflowSettings,
) {
    let declared: Vec<&Project> = projects.iter().filter(|p| p.in_policy).collect();
    if declared.is_empty() {
        return;
    }
    out.push_str("\n# Projects whose Atlantis workflow, terraform_version or autoplan setting the layout cannot\n# carry (and the projects they depend on). The layout's projects are added to these.\nprojects:\n");
    for p in declared {
        project_head(out, p);
        if let Some(version) = p.terraform.as_deref().filter(|v| Some(*v) != terraform) {
            let _ = writeln!(out, "    terraform: {}", scalar(version));
        }
        if !p.autoplan {
            out.push_str("    autoplan: false\n");
        }
        settings_lines(out, "    ", &p.settings, defaults);
    }
}

/// The server-side policy skeleton.
pub(super) fn policy(
    requirements: &BTreeSet<&'static str>,
    terraform: Option<&str>,
    defaults: &WorkflowSettings,
    projects: &[Project],
) -> String {
    let mut out = String::from(
        "# tfgate policy skeleton imported from atlantis.yaml. Put it in the server's policies/\n\
         # directory after replacing every REPLACE value and reviewing each line.\n\
         repos:\n  - REPLACE-owner/REPLACE-repo\n\n\
         # Projects come from the repository's tfgate.yaml.\n\
         allow_repo_layout: true\n\n\
         defaults:\n",
    );
    if let Some(version) = terraform {
        let _ = writeln!(out, "  terraform: {}", scalar(version));
    }
    out.push_str(
        "  plan_role: arn:aws:iam::111111111111:role/REPLACE-plan\n  apply_role: arn:aws:iam::111111111111:role/REPLACE-apply\n",
    );
    settings_lines(&mut out, "  ", defaults, &WorkflowSettings::default());
    out.push_str(
        "\npermissions:\n  plan:\n    min_permission: write\n  apply:\n    min_permission: write\n\n",
    );
    let reqs: Vec<String> = if requirements.is_empty() {
        out.push_str("# Atlantis set no apply_requirements here (server-side repos.yaml may have); tfgate's default:\n");
        vec!["approved".into(), "mergeable".into()]
    } else {
        let order = ["approved", "mergeable", "up_to_date"];
        order
            .iter()
            .filter(|r| requirements.contains(*r))
            .map(|r| r.to_string())
            .collect()
    };
    let _ = writeln!(out, "apply_requirements: {}", list(&reqs));
    out.push_str("allow_fork_prs: false\non_input_drift: block\n");
    policy_projects(&mut out, projects, terraform, defaults);
    out
}
