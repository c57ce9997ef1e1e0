use super::*;
use crate::command::parse_comment;
use crate::model::view::NoticeBody;
use crate::model::RepoRef;

fn job(body: &str) -> CommentJob {
    CommentJob {
        repo: RepoRef {
            installation_id: 1,
            owner: "o".into(),
            name: "r".into(),
        },
        number: 7,
        is_pull_request: true,
        comment_id: 99,
        body: body.into(),
        author: "alice".into(),
        author_is_bot: false,
        author_association: Some("MEMBER".into()),
        repo_is_public: false,
    }
}

fn effects(j: &CommentJob) -> Vec<CommentEffect> {
    comment_effects(j, parse_comment(&j.body, "tfgate"), "tfgate")
}

#[test]
fn plain_text_does_nothing() {
    assert!(effects(&job("LGTM, thanks!")).is_empty());
}

#[test]
fn accepted_command_gets_one_eyes_reaction_then_accept() {
    let e = effects(&job("/plan -d infra\n/apply -d infra"));
    assert_eq!(e[0], CommentEffect::React("eyes"));
    assert_eq!(
        e.iter()
            .filter(|x| matches!(x, CommentEffect::React(_)))
            .count(),
        1
    );
    assert_eq!(
        e.iter()
            .filter(|x| matches!(x, CommentEffect::Accept(_)))
            .count(),
        2
    );
}

#[test]
fn rejected_flag_gets_an_exact_reply_and_no_reaction() {
    let e = effects(&job("/plan -- -chdir=/etc"));
    assert_eq!(e.len(), 1);
    match &e[0] {
        CommentEffect::Reply(NoticeBody::CommandRejected { reason }) => {
            assert!(reason.contains("-chdir"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn help_and_unknown_commands_get_help_once() {
    let e = effects(&job("/help\ntfgate frobnicate"));
    let replies: Vec<&NoticeBody> = e
        .iter()
        .filter_map(|x| match x {
            CommentEffect::Reply(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(replies.len(), 2);
    let helps = replies
        .iter()
        .filter(|r| matches!(r, NoticeBody::Help { markdown } if markdown.contains("/apply")))
        .count();
    assert_eq!(helps, 1, "help text appears once: {replies:?}");
    assert!(replies.iter().any(
        |r| matches!(r, NoticeBody::CommandRejected { reason } if reason.contains("frobnicate"))
    ));
}

#[test]
fn bots_are_ignored() {
    let mut j = job("/apply");
    j.author_is_bot = true;
    assert!(effects(&j).is_empty());
}

#[test]
fn commands_on_issues_get_one_explanation() {
    let mut j = job("/plan");
    j.is_pull_request = false;
    assert_eq!(
        effects(&j),
        vec![CommentEffect::Reply(NoticeBody::NotAPullRequest)]
    );
}

#[test]
fn a_flood_of_bad_lines_is_answered_by_five_and_a_count() {
    let body = "/paln\n".repeat(500) + "/help";
    let e = effects(&job(&body));
    let rejected = e
        .iter()
        .filter(|x| matches!(x, CommentEffect::Reply(NoticeBody::CommandRejected { .. })))
        .count();
    assert_eq!(rejected, REJECTIONS_SHOWN);
    assert!(e.contains(&CommentEffect::Reply(NoticeBody::MoreRejected {
        more: 495
    })));
    assert!(e
        .iter()
        .any(|x| matches!(x, CommentEffect::Reply(NoticeBody::Help { .. }))));
}
