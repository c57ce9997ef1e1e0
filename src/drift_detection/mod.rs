//! Scheduled drift detection: on a schedule, plan each drift-detection root at the default
//! branch head and report what changed outside Terraform in one issue. Pure: when a slot is due
//! ([`schedule`]), which roots it plans ([`scope`]), the findings and the text ([`report`]), and who changed a resource
//! according to CloudTrail ([`who_changed`]). The shell parts are in `worker::drift_detection`
//! and `worker::run::drift_detection`.

pub mod report;
pub mod schedule;
pub mod scope;
pub mod who_changed;
