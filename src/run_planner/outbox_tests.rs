use super::*;
use crate::model::marker::{marker, MarkerKey};
use crate::model::view::{ApplyCounts, CommentMeta, PlanCounts, RootApply, RootPlan};

fn meta(root: &str, run: &str) -> CommentMeta {
    CommentMeta {
        pr: 7,
        marker_root: root.into(),
        run_id: run.into(),
        head_sha_short: None,
        command_by: None,
        check_run_url: None,
    }
}

fn plan_result(root: &str, run: &str) -> RunResult {
    RunResult::Plan {
        comment: PlanComment {
            meta: meta(root, run),
            repo_root_summaries: vec![
                root_plan("eks", PlanStatus::Failed),
                root_plan("net", PlanStatus::NoChanges),
            ],
            drift_warnings: vec![],
            denials: vec![],
            notes: vec![],
            still_planning: Vec::new(),
        },
        pending: vec![],
    }
}

fn root_plan(project: &str, status: PlanStatus) -> RootPlan {
    RootPlan {
        project: project.into(),
        dir: format!("infra/{project}"),
        workspace: "default".into(),
        status,
        counts: PlanCounts::default(),
        warnings: vec![],
        resources: vec![],
        errors: vec![],
        advice: vec![],
        denials: vec![],
        pending_enrichment: false,
        policy_checks: Vec::new(),
    }
}

fn body(kind: CommentKind, pr: u64, root: &str, run: &str) -> String {
    let key = MarkerKey {
        root: root.into(),
        run: run.into(),
    };
    format!("### result\n\n{}", marker(kind, pr, &key))
}

#[test]
fn comment_step_table() {
    let result = plan_result("job-3", "41");
    let ours = body(CommentKind::Plan, 7, "job-3", "41");
    let other_job = body(CommentKind::Plan, 7, "job-2", "41");
    let other_kind = body(CommentKind::Apply, 7, "job-3", "41");
    let other_pr = body(CommentKind::Plan, 8, "job-3", "41");
    let bot = Some("tfgate[bot]");
    type Case<'a> = (&'a str, Vec<SeenComment<'a>>, CommentStep);
    let seen = |id, author, body| SeenComment { id, author, body };
    let cases: Vec<Case> = vec![
        ("no comments", vec![], CommentStep::Create),
        (
            "posted before: found",
            vec![seen(9, bot, Some(ours.as_str()))],
            CommentStep::Found(9),
        ),
        (
            "another job's comment is not ours",
            vec![seen(9, bot, Some(other_job.as_str()))],
            CommentStep::Create,
        ),
        (
            "an apply comment is not the plan",
            vec![seen(9, bot, Some(other_kind.as_str()))],
            CommentStep::Create,
        ),
        (
            "another PR's marker",
            vec![seen(9, bot, Some(other_pr.as_str()))],
            CommentStep::Create,
        ),
        (
            "a marker pasted by a person does not count",
            vec![seen(9, Some("mallory"), Some(ours.as_str()))],
            CommentStep::Create,
        ),
        (
            "another bot's copy does not count",
            vec![seen(9, Some("other[bot]"), Some(ours.as_str()))],
            CommentStep::Create,
        ),
        ("no body", vec![seen(9, bot, None)], CommentStep::Create),
        (
            "the first of two is used",
            vec![
                seen(4, bot, Some(other_job.as_str())),
                seen(9, bot, Some(ours.as_str())),
                seen(11, bot, Some(ours.as_str())),
            ],
            CommentStep::Found(9),
        ),
    ];
    for (name, comments, want) in cases {
        assert_eq!(
            comment_step(&result, "tfgate[bot]", &comments),
            want,
            "{name}"
        );
    }
}

#[test]
fn existing_check_run_table() {
    use ExistingCheckRun::{Completed, Missing, Unfinished};
    let id = check_run_external_id(3, "eks");
    let run = |name, external_id, app_slug| SeenCheckRun {
        id: 9,
        name,
        external_id,
        app_slug,
        completed: true,
    };
    type Case<'a> = (&'a str, Vec<SeenCheckRun<'a>>, ExistingCheckRun);
    let cases: Vec<Case> = vec![
        ("none", vec![], Missing),
        (
            "created before",
            vec![run("tfgate plan: eks", Some(id.as_str()), Some("tfgate"))],
            Completed,
        ),
        (
            "created before, annotations not all sent",
            vec![SeenCheckRun {
                completed: false,
                ..run("tfgate plan: eks", Some(id.as_str()), Some("tfgate"))
            }],
            Unfinished(9),
        ),
        (
            "an earlier job's run",
            vec![run(
                "tfgate plan: eks",
                Some("tfgate:job-2:eks"),
                Some("tfgate"),
            )],
            Missing,
        ),
        (
            "same name without an id",
            vec![run("tfgate plan: eks", None, Some("tfgate"))],
            Missing,
        ),
        (
            "another app's run",
            vec![run("tfgate plan: eks", Some(id.as_str()), Some("ci"))],
            Missing,
        ),
        (
            "another root's name",
            vec![run("tfgate plan: net", Some(id.as_str()), Some("tfgate"))],
            Missing,
        ),
    ];
    for (name, existing, want) in cases {
        assert_eq!(
            existing_check_run(&existing, "tfgate", "tfgate plan: eks", &id),
            want,
            "{name}"
        );
    }
}

#[test]
fn one_check_run_per_root_with_its_conclusion() {
    let plan = plan_result("job-3", "41");
    assert_eq!(
        plan.check_runs(),
        vec![
            ("eks".into(), "tfgate plan: eks".into(), "failure"),
            ("net".into(), "tfgate plan: net".into(), "success"),
        ]
    );
    let apply = RunResult::Apply {
        comment: ApplyComment {
            meta: meta("job-4", "42"),
            roots: vec![root_apply("eks", ApplyStatus::Interrupted)],
            notes: vec![],
        },
        pending: vec![],
    };
    assert_eq!(
        apply.check_runs(),
        vec![("eks".into(), "tfgate apply: eks".into(), "cancelled")]
    );
}

#[test]
fn apply_conclusion_table() {
    let skipped = ApplyStatus::Skipped {
        reason: crate::model::view::SkipReason::Locked {
            project: "eks".into(),
        },
    };
    let cases = [
        (ApplyStatus::Succeeded, "success"),
        (skipped, "skipped"),
        (ApplyStatus::Interrupted, "cancelled"),
        (ApplyStatus::PartiallyFailed, "failure"),
        (ApplyStatus::Failed, "failure"),
    ];
    for (status, want) in cases {
        assert_eq!(apply_conclusion(&status), want, "{status:?}");
    }
}

#[test]
fn a_result_round_trips_as_json() {
    let plan = plan_result("job-3", "41");
    let text = serde_json::to_string(&plan).unwrap();
    assert!(text.starts_with(r#"{"command":"plan""#), "{text}");
    let back: RunResult = serde_json::from_str(&text).unwrap();
    assert_eq!(back.command(), "plan");
    assert_eq!(comment_step(&back, "b[bot]", &[]), CommentStep::Create);
    let RunResult::Plan { comment, .. } = back else {
        panic!("a plan stays a plan")
    };
    assert_eq!(comment.repo_root_summaries.len(), 2);
    assert_eq!(comment.meta.marker_root, "job-3");
}

fn root_apply(project: &str, status: ApplyStatus) -> RootApply {
    RootApply {
        project: project.into(),
        dir: format!("infra/{project}"),
        workspace: "default".into(),
        status,
        counts: ApplyCounts::default(),
        rows: vec![],
        advice: vec![],
        config_errors: vec![],
        pending_enrichment: false,
        denials: vec![],
        plan: None,
    }
}

#[test]
fn notice_keys_name_kind_and_slot() {
    use crate::model::view::Notice;
    use crate::model::view::NoticeBody;
    let notice = |root: &str, project: &str| Notice {
        meta: meta(root, "0"),
        body: NoticeBody::PlanSpent {
            project: project.into(),
        },
    };
    assert_eq!(notice_key(&notice("eks", "eks")), "plan_spent:eks:0");
    assert_ne!(
        notice_key(&notice("eks", "eks")),
        notice_key(&notice("net", "net"))
    );
    let a = publication_post_id("sealed-a");
    assert!(a.starts_with("pub-") && a.len() == 28, "{a}");
    assert_eq!(a, publication_post_id("sealed-a"), "stable across retries");
    assert_ne!(a, publication_post_id("sealed-b"));
}
