//! When an `/apply` is authorised: the plan each root would apply, and whether its author may
//! apply that root too when its flags change the apply (`run_planner::plan_author` decides,
//! with `policy::decide` asked about the author on the same PR facts). A refused root is
//! dropped from the apply, audited, and the PR is told who can plan it again.

use std::collections::BTreeMap;

use anyhow::anyhow;

use super::authorize::{audit, policy_teams_of};
use super::github_error;
use super::replies::Replies;
use crate::command::CommandKind;
use crate::db::runs::{self, RunRow};
use crate::github::{GitHubApp, InstallationClient};
use crate::jobs::{JobError, RunCommand};
use crate::model::view::{NoticeBody, PlanAuthorRefused};
use crate::policy::{decide, Actor, PolicyCommand, PrFacts, RepoPolicy};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::run_planner::decisions::AllowedTarget;
use crate::run_planner::plan_author::{
    applied_plan, needs_author_decision, plan_author_check, plan_may_apply, AuthorStanding,
    PlanAuthor, PlanAuthorCheck,
};
use crate::state::AppState;
use crate::webhook::event::CommentJob;
use crate::worker::input_drift::values as inputs;

/// Where the authorisation happens: the App, its client, the comment, the policy and facts.
pub(super) struct AuthorCheckCtx<'a> {
    pub state: &'a AppState,
    pub app: &'a GitHubApp,
    pub gh: &'a InstallationClient,
    pub comment: &'a CommentJob,
    pub policy: &'a RepoPolicy,
    pub facts: &'a PrFacts,
}

/// The plan run an `/apply` of each project applies: its latest plan at the authorised head.
pub(super) async fn current_plans(
    ctx: &AuthorCheckCtx<'_>,
    projects: &[String],
) -> Result<BTreeMap<String, RunRow>, JobError> {
    let repo = ctx.comment.repo.full_name();
    let mut out = BTreeMap::new();
    for name in projects {
        let Some(p) = ctx.policy.project(name) else {
            continue;
        };
        let (number, ws) = (ctx.comment.number, &p.spec.workspace);
        let plan = RunCommand::Plan.name();
        let latest = runs::latest(&ctx.state.db, &repo, number, name, ws, plan)
            .await
            .map_err(JobError::Transient)?;
        if let Some(run) = latest.filter(|r| r.head_sha == ctx.facts.head_sha) {
            out.insert(name.clone(), run);
        }
    }
    Ok(out)
}

/// Check the author of every plan in `plans` whose flags change the apply; a refused root
/// leaves `allowed` and `plans`, is audited, and gets a reply. Returns the plan run ids left.
pub(super) async fn check_plan_authors(
    ctx: &AuthorCheckCtx<'_>,
    allowed: &mut Vec<AllowedTarget>,
    plans: BTreeMap<String, RunRow>,
    replies: &mut Replies,
) -> Result<BTreeMap<String, i64>, JobError> {
    let mut ids = BTreeMap::new();
    let mut ph = Placeholders::new();
    for (name, row) in plans {
        let plan = PlanAuthor {
            run_id: row.id,
            login: row.actor.clone(),
            flags: row.terraform_args.clone(),
        };
        if !plan_may_apply(row.status) || !needs_author_decision(&plan, &ctx.comment.author) {
            ids.insert(name, row.id);
            continue;
        }
        let Some(target) = allowed
            .iter()
            .find(|a| is_apply_of(a, &name))
            .map(|a| a.target.clone())
        else {
            continue;
        };
        let author = plan_author(ctx, &plan.login).await?;
        let decision = decide(
            &author,
            PolicyCommand::Apply,
            &target,
            ctx.facts,
            ctx.policy,
        );
        let why = match plan_author_check(
            &plan,
            &ctx.comment.author,
            AuthorStanding::Decided(&decision),
        ) {
            PlanAuthorCheck::Proceed => {
                ids.insert(name, row.id);
                continue;
            }
            PlanAuthorCheck::Refuse(why) => why,
        };
        allowed.retain(|a| !is_apply_of(a, &name));
        let detail = format!("{name}: plan run {} by {}", row.id, plan.login);
        audit(
            ctx.state,
            ctx.comment,
            "apply",
            "apply.plan_author",
            "deny",
            Some(detail),
        )
        .await?;
        let redactor = redactor(ctx.policy)?;
        let shown = applied_plan(&plan, |a| redactor.redact_address(a, &mut ph));
        replies.push(NoticeBody::PlanAuthorRefused(PlanAuthorRefused {
            project: name,
            plan: shown,
            why,
        }));
    }
    Ok(ids)
}

fn is_apply_of(allowed: &AllowedTarget, project: &str) -> bool {
    allowed.command.kind == CommandKind::Apply && allowed.project.as_deref() == Some(project)
}

/// The plan's author as policy sees them: permission on the repository, the teams the policy
/// names that they belong to.
async fn plan_author(ctx: &AuthorCheckCtx<'_>, login: &str) -> Result<Actor, JobError> {
    let repo = &ctx.comment.repo;
    let permission = ctx
        .app
        .user_permission(ctx.gh, repo, login)
        .await
        .map_err(github_error)?;
    let teams = policy_teams_of(ctx.gh, &repo.owner, ctx.policy, login).await?;
    Ok(Actor {
        login: login.to_string(),
        permission,
        teams,
        is_bot: login.ends_with("[bot]"),
    })
}

/// The redactor of the policy's runs (its patterns, every shared-input value).
fn redactor(policy: &RepoPolicy) -> Result<Redactor, JobError> {
    Redactor::new(&RedactionConfig {
        extra_patterns: policy.redact_patterns.clone(),
        secret_values: inputs::all_values(policy),
    })
    .map_err(|e| JobError::Permanent(anyhow!("redaction patterns: {e}")))
}
