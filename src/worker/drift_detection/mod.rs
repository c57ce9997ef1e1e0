//! The shell of scheduled drift detection ([`crate::drift_detection`] decides): the schedule
//! tick, the drift issue, and the CloudTrail look-ups for who changed a resource. The plan of
//! each root is a `drift` job, run by `worker::run::drift_detection`.

pub(super) mod issue;
pub mod schedule;
pub(super) mod who;
