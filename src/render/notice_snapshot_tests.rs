//! Snapshot tests of the short replies, the notes and the skip reasons.

use super::samples;
use super::*;

fn snap_text(name: &str, text: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn renderer() -> Renderer {
    Renderer::new().expect("default templates load")
}

fn rendered(kind: CommentKind) -> String {
    let notice = samples::notices()
        .into_iter()
        .find(|n| notice_kind(&n.body) == kind)
        .expect("a sample notice of every kind");
    renderer().render_notice(&notice).unwrap()
}

#[test]
fn every_reply_kind_has_a_snapshot() {
    let kinds = [
        (CommentKind::LocksReleased, "notice_locks_released"),
        (CommentKind::CancelReport, "notice_cancel_report"),
        (CommentKind::InputsReport, "notice_inputs_report"),
        (CommentKind::LayoutProblems, "notice_layout_problems"),
        (CommentKind::NotAPullRequest, "notice_not_a_pull_request"),
        (CommentKind::NoAffectedRoot, "notice_no_affected_root"),
        (CommentKind::ProjectsGone, "notice_projects_gone"),
        (CommentKind::InputDriftRefused, "notice_input_drift_refused"),
        (CommentKind::HeadMoved, "notice_head_moved"),
        (CommentKind::JobFailed, "notice_job_failed"),
        (CommentKind::RootBusy, "notice_root_busy"),
        (CommentKind::Outsider, "notice_outsider"),
        (CommentKind::RateLimited, "notice_rate_limited"),
        (CommentKind::MoreRejected, "notice_more_rejected"),
        (CommentKind::ApplyInterrupted, "notice_apply_interrupted"),
        (CommentKind::PlanSpent, "notice_plan_spent"),
        (CommentKind::PlanAuthorRefused, "notice_plan_author_refused"),
        (CommentKind::DeployAck, "notice_deploy_ack"),
        (CommentKind::MergedUnapplied, "notice_merged_unapplied"),
        (CommentKind::PolicyBlocked, "notice_policy_blocked"),
        (CommentKind::PolicyApproval, "notice_policy_approval"),
        (
            CommentKind::AffectedRootsIncomplete,
            "notice_affected_roots_incomplete",
        ),
    ];
    for (kind, name) in kinds {
        let text = rendered(kind);
        assert_eq!(parse_marker(&text).unwrap().kind, kind);
        snap_text(name, text);
    }
}

#[test]
fn second_shapes_of_cancel_and_inputs_have_snapshots() {
    let names = [
        "notice_cancel_nothing_queued",
        "notice_inputs_none_declared",
    ];
    for (notice, name) in samples::alternate_notices().into_iter().zip(names) {
        snap_text(name, renderer().render_notice(&notice).unwrap());
    }
}

/// Today's reply texts, word for word, at the start of the rendered notices.
#[test]
fn replies_keep_their_wording() {
    let cases = [
        (
            CommentKind::LocksReleased,
            "Released 2 lock(s) held by this pull request.\n".to_string(),
        ),
        (
            CommentKind::NotAPullRequest,
            "tfgate runs commands on pull requests only; comment on the pull request that changes the Terraform code.\n".to_string(),
        ),
        (
            CommentKind::NoAffectedRoot,
            "this pull request changes no Terraform root that the admin policy declares; name one with `-p PROJECT` or `-d DIR`.\n".to_string(),
        ),
        (
            CommentKind::ProjectsGone,
            "Not run, no longer declared (the admin policy or `tfgate.yaml` on `main` changed \
             since the command): `eks`, `network`.\n"
                .to_string(),
        ),
        (
            CommentKind::HeadMoved,
            "The head moved from `3f2a9e0` to `9c1b2d4` after this `/plan` was accepted; \
             nothing was run. Comment again to run it on the new head.\n"
                .to_string(),
        ),
        (
            CommentKind::JobFailed,
            "tfgate could not finish this command: GitHub did not answer while the plan comment \
             was posted. Nothing more will be tried on its own; an admin can find the error \
             with `tfgate jobs` (job `17`).\n"
                .to_string(),
        ),
    ];
    for (kind, start) in cases {
        let text = rendered(kind);
        assert!(text.starts_with(&start), "{kind:?}:\n{text}");
    }
}

#[test]
fn plan_notes() {
    let text = renderer()
        .render_plan(&samples::plan_with_every_note())
        .unwrap();
    let lines = [
        "- `eks`: Terraform for `eks` is not installed on the server.",
        "- `eks`: Terraform 1.9.8 could not be downloaded; nothing ran. An admin can see why in the server log (`tfgate doctor` checks the release site).",
        "- `eks`: OpenTofu 1.8.1 was downloaded and refused: it does not match the vendor's signed checksums, so nothing was installed and nothing ran. An admin should check the release site or mirror (`tfgate doctor`).",
        "- `eks`: Terraform 1.9.8 has no build for this server's platform; nothing ran.",
        "- `eks`: the plan could not start (the checkout of `9c1b2d4` failed).",
        "- `eks`: shared input `VPN_CIDRS` could not be read on the server; the plan ran without it",
        "- `eks`: `tfgate.inputs.lock` is not valid (line 4); it was ignored",
        "- `eks`: shared input `ADMIN_CIDRS` differs from `tfgate.inputs.lock` (committed 3f2a9e0c → live 9c1b2d4e)",
        "- `eks`: shared input `ADMIN_CIDRS` changed since the last apply; it changes no resource (only output `admins`). The next apply takes the new value.",
        "- `eks`: shared-input drift could not be checked.",
        "- Comment `/apply` to apply this plan.",
    ];
    assert!(text.contains(&lines.join("\n")), "{text}");
    snap_text("plan_every_note", text);
}

#[test]
fn apply_notes_and_skip_reasons() {
    let text = renderer()
        .render_apply(&samples::apply_with_every_skip_reason())
        .unwrap();
    let skipped = [
        "`eks` has no current plan; ",
        "`eks` is locked by another pull request; ",
        "`eks` waits for a shared-input decision; ",
        "`eks` has no readable plan; ",
        "`eks` has no Terraform; ",
        "`eks` could not start; ",
        "`eks` failed; after `/plan -p eks`, ",
        "the last apply of `eks` failed part-way; after `/plan -p eks`, ",
        "the plan of `eks` fails a `deny` plan policy; after an owner's `/approve-policies -p eks` (or a fix and a new plan), ",
    ];
    for why in skipped {
        let line = format!("Skipped: not run: {why}the next `/apply` resumes here\n\n");
        assert!(text.contains(&line), "missing {line:?}");
    }
    assert!(text.contains("Skipped: depends on `eks`, which failed\n\n"));
    let notes = [
        "- `network` was already applied at this commit.",
        "- `dns`: plan policy failures approved before this apply: `ssh` by `alice`.",
        "- `eks`: its plan is no longer stored (plans are kept 30 days); run `/plan` again.",
        "- `eks`: the stored plan could not be read; run `/plan` again.",
        "- `eks`: Terraform for `eks` is not installed on the server.",
        "- `eks`: the apply could not start (internal error; an admin can read the server log).",
        "- CloudTrail did not confirm every denied action in time; an admin can read the run's raw log with `tfgate logs`.",
        "- Run `/plan` again to see what is left.",
    ];
    assert!(text.contains(&notes.join("\n")), "{text}");
    snap_text("apply_every_skip_reason", text);
}
