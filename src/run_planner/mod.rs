//! The run path's decisions, pure: what a comment or a push leads to, which jobs are queued
//! and bound to which commit, whether a run may start, and what each root of an apply does.
//! The worker gathers the facts, calls these, and carries the steps out.

pub mod apply_ready;
pub mod apply_status;
pub mod apply_step;
pub mod autoplan;
pub mod cancel;
pub mod comment;
pub mod commenter_gate;
pub mod decisions;
pub mod enqueue;
pub mod fold;
pub mod latest_runs;
pub mod outbox;
pub mod plan_author;
pub mod plan_split;
pub mod policy_gate;
pub mod pr_event;
pub mod record;
pub mod run_end;
pub mod settings;
pub mod stale_plans;
pub mod start;
pub mod targets;
