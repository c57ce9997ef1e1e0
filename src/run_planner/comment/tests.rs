use super::*;
use crate::command::parse_comment;
use crate::webhook::event::RepoRef;

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
        CommentEffect::Reply(text) => assert!(text.contains("-chdir"), "{text}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn help_and_unknown_commands_get_help_once() {
    let e = effects(&job("/help\ntfgate frobnicate"));
    let replies: Vec<&String> = e
        .iter()
        .filter_map(|x| match x {
            CommentEffect::Reply(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(replies.len(), 2);
    let with_help = replies.iter().filter(|r| r.contains("/apply")).count();
    assert_eq!(with_help, 1, "help text appears once: {replies:?}");
    assert!(replies.iter().any(|r| r.contains("frobnicate")));
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
        vec![CommentEffect::Reply(NOT_A_PULL_REQUEST.into())]
    );
}
