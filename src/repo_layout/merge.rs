//! Merging the repository's layout projects into its policy.
//!
//! Rules: a layout is ignored unless the policy sets `allow_repo_layout`; a policy project
//! wins over a layout project with the same name or the same dir+workspace; layout projects
//! in excluded dirs are dropped; the rest inherit the policy's `defaults` and permissions.
//! `depends_on` may name layout or policy projects; unknown names and cycles are problems
//! reported in the layout file.

use super::layout::{LayoutProject, RepoLayout};
use crate::policy::locate::{idx, key};
use crate::policy::resolve::resolve_project;
use crate::policy::schema::ProjectPolicy;
use crate::policy::validate::Checker;
use crate::policy::{PolicyProblem, ProjectOrigin, RepoPolicy, ResolvedProject};
use crate::project::{ProjectId, ProjectSpec};
use std::collections::BTreeSet;

/// The policy with layout projects added, and what was left out and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutMerge {
    pub policy: RepoPolicy,
    /// One line per ignored layout or layout project (for logs and `explain`).
    pub notes: Vec<String>,
}

/// Merges `layout` (if any) into `policy`.
pub fn merge_layout(
    policy: &RepoPolicy,
    layout: Option<&RepoLayout>,
) -> Result<LayoutMerge, Vec<PolicyProblem>> {
    let mut merged = policy.clone();
    let mut notes = Vec::new();
    let Some(layout) = layout else {
        return Ok(LayoutMerge {
            policy: merged,
            notes,
        });
    };
    if !policy.allow_repo_layout {
        notes.push(format!(
            "{} ignored: the admin policy does not allow repo layouts",
            layout.file
        ));
        return Ok(LayoutMerge {
            policy: merged,
            notes,
        });
    }
    let mut added: Vec<usize> = Vec::new();
    for (i, project) in layout.projects.iter().enumerate() {
        match resolve_layout_project(policy, &layout.file, project) {
            None => {}
            Some(Err(note)) => notes.push(note),
            Some(Ok(resolved)) => {
                merged.projects.push(resolved);
                added.push(i);
            }
        }
    }
    let mut checker = Checker::new(&layout.file, &layout.source);
    check_unknown_dependencies(&mut checker, layout, &added, &merged);
    if checker.problems.is_empty() {
        check_cycle(&mut checker, layout, &merged);
    }
    if checker.problems.is_empty() {
        Ok(LayoutMerge {
            policy: merged,
            notes,
        })
    } else {
        Err(checker.problems)
    }
}

/// One layout project resolved against the policy; `Err` is the note saying why it is ignored,
/// `None` a project without a usable id or dir (the layout's own checks report those).
fn resolve_layout_project(
    policy: &RepoPolicy,
    layout_file: &str,
    project: &LayoutProject,
) -> Option<Result<ResolvedProject, String>> {
    let (Some(id), Some(dir)) = (project.id(), crate::project::normalize_dir(&project.dir)) else {
        return None;
    };
    let workspace = project
        .workspace
        .clone()
        .unwrap_or_else(|| "default".into());
    if policy.project(id.as_str()).is_some() || policy.project_at(&dir, &workspace).is_some() {
        return Some(Err(format!(
            "{layout_file}: project `{id}` ignored: the admin policy declares it"
        )));
    }
    if policy.is_excluded(&dir) {
        return Some(Err(format!(
            "{layout_file}: project `{id}` ignored: `{dir}` is excluded by the admin policy"
        )));
    }
    let spec = ProjectSpec {
        id,
        dir: dir.clone(),
        workspace: workspace.clone(),
        depends_on: project
            .depends_on
            .iter()
            .map(|d| ProjectId::new(d.as_str()))
            .collect(),
        when_modified: project.when_modified.clone(),
        inputs: Vec::new(),
    };
    let as_policy = ProjectPolicy {
        egress: None,
        regions: None,
        providers: None,
        var_files: None,
        backend_config: None,
        plan_args: None,
        apply_args: None,
        name: project.name.clone(),
        dir,
        workspace: Some(workspace),
        terraform: None,
        terraform_version: None,
        opentofu_version: None,
        plan_role: None,
        apply_role: None,
        session_policy: None,
        session_duration: None,
        parallelism: None,
        timeout: None,
        network: None,
        create_workspace: None,
        depends_on: project.depends_on.clone(),
        autoplan: None,
        when_modified: project.when_modified.clone(),
        comment_apply: None,
        inputs: Vec::new(),
        permissions: None,
    };
    Some(Ok(resolve_project(
        spec,
        &as_policy,
        &policy.defaults,
        &policy.permissions,
        ProjectOrigin::RepoLayout,
    )))
}

/// `depends_on` of the added layout projects (indexes `added`) must name a merged project.
fn check_unknown_dependencies(
    checker: &mut Checker,
    layout: &RepoLayout,
    added: &[usize],
    merged: &RepoPolicy,
) {
    let known: BTreeSet<ProjectId> = merged.projects.iter().map(|p| p.id().clone()).collect();
    for &i in added {
        for (j, dep) in layout.projects[i].depends_on.iter().enumerate() {
            if !known.contains(&ProjectId::new(dep.as_str())) {
                checker.at(
                    &[key("projects"), idx(i), key("depends_on"), idx(j)],
                    format!("depends_on names unknown project `{dep}`"),
                );
            }
        }
    }
}

/// A `depends_on` cycle among the merged projects, reported at the first layout edge on it.
fn check_cycle(checker: &mut Checker, layout: &RepoLayout, merged: &RepoPolicy) {
    let Some(cycle) = crate::project::find_cycle(&merged.specs()) else {
        return;
    };
    let walk = cycle
        .iter()
        .map(ProjectId::as_str)
        .collect::<Vec<_>>()
        .join(" -> ");
    let at = cycle.windows(2).find_map(|pair| {
        let i = layout
            .projects
            .iter()
            .position(|p| p.id().as_ref() == Some(&pair[0]))?;
        let j = layout.projects[i]
            .depends_on
            .iter()
            .position(|d| d == pair[1].as_str())?;
        Some(vec![key("projects"), idx(i), key("depends_on"), idx(j)])
    });
    checker.at(
        &at.unwrap_or_default(),
        format!("depends_on forms a cycle: {walk}"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;
    use crate::repo_layout::parse_layout;

    const POLICY: &str = "repos: [acme/*]\nallow_repo_layout: true\nexclude: [legacy/**]\ndefaults:\n  plan_role: arn:aws:iam::111111111111:role/plan\n  apply_role: arn:aws:iam::111111111111:role/apply\n  parallelism: 4\nprojects:\n  - name: network\n    dir: infra/network\n    apply_role: arn:aws:iam::111111111111:role/net\n";

    fn merge(layout: &str) -> Result<LayoutMerge, Vec<PolicyProblem>> {
        let policy = load_policy("p.yaml", POLICY).unwrap();
        let layout = parse_layout("tfgate.yaml", layout).unwrap();
        merge_layout(&policy, Some(&layout))
    }

    #[test]
    fn layout_projects_inherit_defaults_and_policy_wins() {
        let m = merge("projects:\n  - name: network\n    dir: somewhere\n  - dir: infra/network\n  - name: eks\n    dir: infra/eks\n    depends_on: [network]\n  - dir: legacy/vpc\n").unwrap();
        let names: Vec<&str> = m.policy.projects.iter().map(|p| p.id().as_str()).collect();
        assert_eq!(names, vec!["network", "eks"]);
        let eks = m.policy.project("eks").unwrap();
        assert_eq!(eks.origin, ProjectOrigin::RepoLayout);
        assert_eq!(eks.parallelism, 4);
        assert_eq!(
            eks.apply_role.as_deref(),
            Some("arn:aws:iam::111111111111:role/apply")
        );
        assert_eq!(
            m.policy.project("network").unwrap().apply_role.as_deref(),
            Some("arn:aws:iam::111111111111:role/net")
        );
        assert_eq!(
            m.notes,
            vec![
                "tfgate.yaml: project `network` ignored: the admin policy declares it",
                "tfgate.yaml: project `infra/network` ignored: the admin policy declares it",
                "tfgate.yaml: project `legacy/vpc` ignored: `legacy/vpc` is excluded by the admin policy",
            ]
        );
    }

    #[test]
    fn layout_ignored_unless_allowed() {
        let policy = load_policy("p.yaml", "repos: [acme/*]\n").unwrap();
        let layout = parse_layout("tfgate.yaml", "projects:\n  - dir: a\n").unwrap();
        let m = merge_layout(&policy, Some(&layout)).unwrap();
        assert!(m.policy.projects.is_empty());
        assert_eq!(
            m.notes,
            vec!["tfgate.yaml ignored: the admin policy does not allow repo layouts"]
        );
    }

    #[test]
    fn unknown_dependency_and_cycles_are_located_in_the_layout() {
        let err = merge("projects:\n  - dir: a\n    depends_on: [nope]\n").unwrap_err();
        assert_eq!(
            err[0].to_string(),
            "tfgate.yaml:3:18: depends_on names unknown project `nope`"
        );
        let err =
            merge("projects:\n  - dir: a\n    depends_on: [b]\n  - dir: b\n    depends_on: [a]\n")
                .unwrap_err();
        assert_eq!(
            err[0].to_string(),
            "tfgate.yaml:3:18: depends_on forms a cycle: a -> b -> a"
        );
    }

    #[test]
    fn decide_sees_layout_projects() {
        use crate::policy::{decide, Actor, GitHubPermission, PolicyCommand, PrFacts, Target};
        let m = merge("projects:\n  - name: eks\n    dir: infra/eks\n").unwrap();
        let actor = Actor {
            login: "alice".into(),
            permission: GitHubPermission::Write,
            teams: vec![],
            is_bot: false,
        };
        let mut facts = PrFacts {
            author: "alice".into(),
            head_sha: "h".into(),
            base_ref: "main".into(),
            ..PrFacts::default()
        };
        let untouched = decide(
            &actor,
            PolicyCommand::Apply,
            &Target::project("eks"),
            &facts,
            &m.policy,
        );
        assert_eq!(untouched.rule, "apply.target_not_in_pr");
        facts.changed_files = vec!["infra/eks/main.tf".into()];
        let touched = decide(
            &actor,
            PolicyCommand::Apply,
            &Target::project("eks"),
            &facts,
            &m.policy,
        );
        assert_eq!(touched.rule, "apply.requires_approval");
        let plan = decide(
            &actor,
            PolicyCommand::Plan,
            &Target::dir("infra/eks"),
            &facts,
            &m.policy,
        );
        assert!(plan.is_allowed());
    }
}
