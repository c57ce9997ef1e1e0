//! Which kind of comment each notice is (its hidden marker names it).

use super::NoticeBody;
use crate::model::marker::CommentKind;

/// The marker kind and template of each notice.
pub fn notice_kind(body: &NoticeBody) -> CommentKind {
    match body {
        NoticeBody::LockHeld(_) => CommentKind::LockHeld,
        NoticeBody::PlanStale(_) => CommentKind::PlanStale,
        NoticeBody::CommandRejected { .. } => CommentKind::CommandRejected,
        NoticeBody::PolicyDenied { .. } => CommentKind::PolicyDenied,
        NoticeBody::NotEnabled { .. } => CommentKind::NotEnabled,
        NoticeBody::Interrupted(_) => CommentKind::Interrupted,
        NoticeBody::Help { .. } => CommentKind::Help,
        NoticeBody::InternalError => CommentKind::InternalError,
        NoticeBody::LocksReleased { .. } => CommentKind::LocksReleased,
        NoticeBody::CancelReport(_) => CommentKind::CancelReport,
        NoticeBody::InputsReport(_) => CommentKind::InputsReport,
        NoticeBody::LayoutProblems { .. } => CommentKind::LayoutProblems,
        NoticeBody::NotAPullRequest => CommentKind::NotAPullRequest,
        NoticeBody::NoAffectedRoot => CommentKind::NoAffectedRoot,
        NoticeBody::AffectedRootsIncomplete { .. } => CommentKind::AffectedRootsIncomplete,
        NoticeBody::ProjectsGone { .. } => CommentKind::ProjectsGone,
        NoticeBody::InputDriftRefused { .. } => CommentKind::InputDriftRefused,
        NoticeBody::HeadMoved { .. } => CommentKind::HeadMoved,
        NoticeBody::RootBusy { .. } => CommentKind::RootBusy,
        NoticeBody::Outsider { .. } => CommentKind::Outsider,
        NoticeBody::RateLimited { .. } => CommentKind::RateLimited,
        NoticeBody::MoreRejected { .. } => CommentKind::MoreRejected,
        NoticeBody::JobFailed { .. } => CommentKind::JobFailed,
        NoticeBody::ApplyInterrupted { .. } => CommentKind::ApplyInterrupted,
        NoticeBody::PlanSpent { .. } => CommentKind::PlanSpent,
        NoticeBody::PlanAuthorRefused(_) => CommentKind::PlanAuthorRefused,
        NoticeBody::DeployAck { .. } => CommentKind::DeployAck,
        NoticeBody::MergedUnapplied { .. } => CommentKind::MergedUnapplied,
        NoticeBody::PolicyBlocked(_) => CommentKind::PolicyBlocked,
        NoticeBody::PolicyApproval(_) => CommentKind::PolicyApproval,
    }
}
