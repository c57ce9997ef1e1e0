//! Semantic checks of one parsed policy file, and its resolution into a [`RepoPolicy`].
//!
//! Every problem points at the offending node (see `locate.rs`).

pub(crate) use super::checker::Checker;
use super::locate::{idx, key, Seg};
use super::model::{Input, InputSource, RepoPolicy};
use super::problem::PolicyProblem;
use super::schema::{
    ApplyRequirement, BackendConfig, CommandPermission, DurationSpec, PolicyFile, ProjectDefaults,
};
use super::values;
use crate::tool_release::Tool;
use std::collections::BTreeSet;

mod plan_policies;
mod private_sources;
mod projects;
use projects::check_projects;

fn p(segs: &[Seg]) -> Vec<Seg> {
    segs.to_vec()
}

/// Checks `file` and resolves it. `Err` holds every problem found.
pub(crate) fn validate_file(
    file_name: &str,
    source: &str,
    file: &PolicyFile,
) -> Result<RepoPolicy, Vec<PolicyProblem>> {
    let mut c = Checker::new(file_name, source);
    check_repos(&mut c, file);
    let exclude = check_exclude(&mut c, file);
    check_defaults(&mut c, &file.defaults);
    check_permissions(
        &mut c,
        &[key("permissions")],
        &file.permissions.plan,
        "plan",
    );
    check_permissions(
        &mut c,
        &[key("permissions")],
        &file.permissions.apply,
        "apply",
    );
    check_requirements(&mut c, file);
    let inputs = check_inputs(&mut c, file);
    for (i, pattern) in file.redact_patterns.iter().enumerate() {
        c.check(
            &[key("redact_patterns"), idx(i)],
            values::redact_pattern(pattern),
        );
    }
    check_cloudtrail(&mut c, file);
    if file.allow_repo_layout
        && (file.defaults.plan_role.is_none() || file.defaults.apply_role.is_none())
    {
        c.at_key(&[], "allow_repo_layout", "allow_repo_layout needs defaults.plan_role and defaults.apply_role (layout projects inherit them)");
    }
    let projects = check_projects(&mut c, file, &exclude, &inputs);
    let (module_repos, registry_tokens) = private_sources::check(&mut c, file);
    let gitops = private_sources::check_gitops(&mut c, file);
    let drift_detection = private_sources::check_drift_detection(&mut c, file, &projects);
    let plan_policies = plan_policies::check(&mut c, file, &projects);
    check_admin_teams(&mut c, file);
    if !c.problems.is_empty() {
        return Err(c.problems);
    }
    Ok(RepoPolicy {
        file: file_name.to_string(),
        repos: file.repos.clone(),
        projects,
        defaults: file.defaults.clone(),
        allow_repo_layout: file.allow_repo_layout,
        exclude,
        permissions: file.permissions.clone(),
        apply_requirements: dedup(&file.apply_requirements),
        min_approvals: file.min_approvals,
        required_checks: file.required_checks.iter().map(|c| c.check()).collect(),
        base_branches: file.base_branches.clone(),
        allow_fork_prs: file.allow_fork_prs,
        require_apply_before_merge: file.require_apply_before_merge,
        replan_on_apply: file.replan_on_apply,
        reply_to_outsiders: file.reply_to_outsiders,
        commands_per_hour: file.commands_per_hour,
        parallel_plans: file.parallel_plans,
        inputs,
        redact_patterns: file.redact_patterns.clone(),
        on_input_drift: file.on_input_drift,
        cloudtrail: file.cloudtrail.clone(),
        module_repos,
        registry_tokens,
        gitops,
        drift_detection,
        admins: file.admins.clone(),
        plan_policies,
        compiled_plan_policies: Vec::new(),
    })
}

/// `admins.teams` entries are written `org/team-slug`.
fn check_admin_teams(c: &mut Checker, file: &PolicyFile) {
    for (i, team) in file.admins.teams.iter().enumerate() {
        let ok = team
            .split_once('/')
            .is_some_and(|(org, slug)| !org.is_empty() && !slug.is_empty() && !slug.contains('/'));
        if !ok {
            c.at(
                &[key("admins"), key("teams"), idx(i)],
                format!("team `{team}` must be written `org/team-slug`"),
            );
        }
    }
}

fn dedup(list: &[ApplyRequirement]) -> Vec<ApplyRequirement> {
    let set: BTreeSet<ApplyRequirement> = list.iter().copied().collect();
    set.into_iter().collect()
}

fn check_repos(c: &mut Checker, file: &PolicyFile) {
    if file.repos.is_empty() {
        c.at_key(
            &[],
            "repos",
            "repos must list at least one owner/repo pattern",
        );
    }
    let mut seen = BTreeSet::new();
    for (i, pattern) in file.repos.iter().enumerate() {
        let path = [key("repos"), idx(i)];
        if c.check(&path, values::repo_glob(pattern)).is_some()
            && !seen.insert(pattern.to_lowercase())
        {
            c.at(&path, format!("repo pattern `{pattern}` is listed twice"));
        }
    }
}

fn check_exclude(c: &mut Checker, file: &PolicyFile) -> Vec<String> {
    let mut out = Vec::new();
    for (i, glob) in file.exclude.iter().enumerate() {
        let path = [key("exclude"), idx(i)];
        if c.check(&path, values::path_glob(glob)).is_some() {
            match crate::project::normalize_dir(glob) {
                Some(norm) => out.push(norm),
                None => c.at(
                    &path,
                    format!("bad glob `{glob}`: must stay inside the repository"),
                ),
            }
        }
    }
    out
}

/// Value checks shared by `defaults` and projects.
struct Settings<'a> {
    terraform: &'a Option<String>,
    terraform_version: &'a Option<String>,
    opentofu_version: &'a Option<String>,
    plan_role: &'a Option<String>,
    apply_role: &'a Option<String>,
    session_policy: &'a Option<String>,
    session_duration: &'a Option<DurationSpec>,
    parallelism: &'a Option<u32>,
    timeout: &'a Option<DurationSpec>,
    egress: &'a Option<Vec<String>>,
    regions: &'a Option<Vec<String>>,
    providers: &'a Option<Vec<String>>,
    var_files: &'a Option<Vec<String>>,
    backend_config: &'a Option<BackendConfig>,
    plan_args: &'a Option<Vec<String>>,
    apply_args: &'a Option<Vec<String>>,
}

fn check_settings(c: &mut Checker, base: &[Seg], s: Settings) {
    let at = |name: &str| {
        let mut v = base.to_vec();
        v.push(key(name));
        v
    };
    check_tool_choice(c, &at, &s);
    if let Some(r) = s.plan_role {
        c.check(&at("plan_role"), values::role_arn(r));
    }
    if let Some(r) = s.apply_role {
        c.check(&at("apply_role"), values::role_arn(r));
    }
    if let Some(sp) = s.session_policy {
        c.check(&at("session_policy"), values::session_policy(sp));
    }
    if let Some(d) = s.session_duration {
        c.check(
            &at("session_duration"),
            values::duration_in(d, "session_duration", values::SESSION_DURATION_RANGE),
        );
    }
    if let Some(n) = s.parallelism {
        if !values::PARALLELISM_RANGE.contains(n) {
            c.at(
                &at("parallelism"),
                format!("parallelism must be between 1 and 256 (got {n})"),
            );
        }
    }
    if let Some(t) = s.timeout {
        c.check(
            &at("timeout"),
            values::duration_in(t, "timeout", values::TIMEOUT_RANGE),
        );
    }
    check_list(c, &at("egress"), s.egress, crate::egress::parse_rule);
    check_list(c, &at("regions"), s.regions, values::region);
    check_list(c, &at("providers"), s.providers, values::provider_source);
    check_list(c, &at("var_files"), s.var_files, values::root_relative_file);
    check_list(c, &at("plan_args"), s.plan_args, |a| {
        crate::command::policy_terraform_arg(a, false)
    });
    check_list(c, &at("apply_args"), s.apply_args, |a| {
        crate::command::policy_terraform_arg(a, true)
    });
    match s.backend_config {
        Some(BackendConfig::File(path)) => {
            c.check(&at("backend_config"), values::root_relative_file(path));
        }
        Some(BackendConfig::Values(map)) => {
            for key in map.keys() {
                c.check(&at("backend_config"), values::backend_config_key(key));
            }
        }
        None => {}
    }
}

/// Each item of an optional list through `check`, reported at its index.
fn check_list<T>(
    c: &mut Checker,
    at: &[Seg],
    list: &Option<Vec<String>>,
    check: impl Fn(&str) -> Result<T, String>,
) {
    for (i, item) in list.iter().flatten().enumerate() {
        let mut path = at.to_vec();
        path.push(idx(i));
        c.check(&path, check(item));
    }
}

/// `terraform`, `terraform_version` and `opentofu_version`: each valid, at most one set.
fn check_tool_choice(c: &mut Checker, at: &dyn Fn(&str) -> Vec<Seg>, s: &Settings) {
    if let Some(t) = s.terraform {
        c.check(&at("terraform"), values::terraform(t));
    }
    if let Some(v) = s.terraform_version {
        c.check(
            &at("terraform_version"),
            values::tool_version(Tool::Terraform, v),
        );
    }
    if let Some(v) = s.opentofu_version {
        c.check(
            &at("opentofu_version"),
            values::tool_version(Tool::OpenTofu, v),
        );
    }
    let chosen = [
        ("terraform", s.terraform),
        ("terraform_version", s.terraform_version),
        ("opentofu_version", s.opentofu_version),
    ];
    let set: Vec<&str> = chosen
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| *k)
        .collect();
    if set.len() > 1 {
        c.check(
            &at(set[1]),
            Err::<(), _>(format!(
                "set only one of `terraform`, `terraform_version` and `opentofu_version` (here: `{}`)",
                set.join("`, `")
            )),
        );
    }
}

fn check_defaults(c: &mut Checker, d: &ProjectDefaults) {
    check_settings(
        c,
        &[key("defaults")],
        Settings {
            terraform: &d.terraform,
            terraform_version: &d.terraform_version,
            opentofu_version: &d.opentofu_version,
            plan_role: &d.plan_role,
            apply_role: &d.apply_role,
            session_policy: &d.session_policy,
            session_duration: &d.session_duration,
            parallelism: &d.parallelism,
            timeout: &d.timeout,
            egress: &d.egress,
            regions: &d.regions,
            providers: &d.providers,
            var_files: &d.var_files,
            backend_config: &d.backend_config,
            plan_args: &d.plan_args,
            apply_args: &d.apply_args,
        },
    );
}

fn check_permissions(c: &mut Checker, base: &[Seg], rule: &CommandPermission, side: &str) {
    let mut path = base.to_vec();
    path.push(key(side));
    for (i, user) in rule.users.iter().enumerate() {
        let mut at = path.clone();
        at.extend([key("users"), idx(i)]);
        c.check(&at, values::login(user));
    }
    for (i, team) in rule.teams.iter().enumerate() {
        let mut at = path.clone();
        at.extend([key("teams"), idx(i)]);
        c.check(&at, values::team(team));
    }
}

fn check_requirements(c: &mut Checker, file: &PolicyFile) {
    let wants_checks = file
        .apply_requirements
        .contains(&ApplyRequirement::ChecksPassed);
    if wants_checks && file.required_checks.is_empty() {
        c.at_key(
            &[],
            "apply_requirements",
            "checks_passed needs required_checks (the check names that must pass)",
        );
    }
    if !wants_checks && !file.required_checks.is_empty() {
        c.at_key(
            &[],
            "required_checks",
            "required_checks has no effect without checks_passed in apply_requirements",
        );
    }
    for (i, spec) in file.required_checks.iter().enumerate() {
        let check = spec.check();
        if check.name.trim().is_empty() {
            c.at(&[key("required_checks"), idx(i)], "empty check name");
        }
        if check.app.is_some_and(|app| app.trim().is_empty()) {
            c.at(&[key("required_checks"), idx(i)], "empty app slug");
        }
    }
    for (i, glob) in file.base_branches.iter().enumerate() {
        c.check(&[key("base_branches"), idx(i)], values::branch_glob(glob));
    }
    if file
        .apply_requirements
        .contains(&ApplyRequirement::Approved)
        && file.min_approvals == 0
    {
        c.at_key(
            &[],
            "min_approvals",
            "min_approvals must be at least 1 when approved is required",
        );
    }
}

fn check_inputs(c: &mut Checker, file: &PolicyFile) -> Vec<Input> {
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for (i, input) in file.inputs.iter().enumerate() {
        let at = |k: &str| p(&[key("inputs"), idx(i), key(k)]);
        let name_ok = c
            .check(&at("name"), values::input_name(&input.name))
            .is_some();
        if name_ok && !names.insert(input.name.clone()) {
            c.at(&at("name"), format!("duplicate input `{}`", input.name));
        }
        let var_ok = c
            .check(&at("variable"), values::variable(&input.variable))
            .is_some();
        let source = InputSource::parse(&input.source);
        if source.is_none() {
            c.at(
                &at("source"),
                format!(
                    "unknown input source `{}`: use env:NAME or file:PATH",
                    input.source
                ),
            );
        }
        check_own_env(c, &at("source"), source.as_ref());
        if let (true, true, Some(source)) = (name_ok, var_ok, source) {
            out.push(Input {
                name: input.name.clone(),
                variable: input.variable.clone(),
                source,
            });
        }
    }
    out
}

/// A source may not read tfgate's own configuration (`TFGATE_*`, `DATABASE_URL`).
fn check_own_env(c: &mut Checker, at: &[Seg], source: Option<&InputSource>) {
    if let Some(InputSource::Env(name)) = source {
        if let Some(message) = super::sources::env_source_problem(name) {
            c.at(at, message);
        }
    }
}

fn check_cloudtrail(c: &mut Checker, file: &PolicyFile) {
    let Some(ct) = &file.cloudtrail else { return };
    for (account, arn) in &ct.read_roles {
        let path = [key("cloudtrail"), key("read_roles"), key(account)];
        if account.len() != 12 || !account.chars().all(|ch| ch.is_ascii_digit()) {
            c.at_key(
                &[key("cloudtrail"), key("read_roles")],
                account,
                format!("bad account id `{account}`: expected 12 digits"),
            );
            continue;
        }
        if let Some(arn_account) = c.check(&path, values::role_arn(arn)) {
            if &arn_account != account {
                c.at(
                    &path,
                    format!("role is in account {arn_account}, not {account}"),
                );
            }
        }
    }
}
