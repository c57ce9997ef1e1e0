//! Pure decisions about what to do with a job: which replies, reactions and runs follow from
//! a comment or a pull-request event. The worker carries the effects out.

pub mod cancel;
pub mod comment;
pub mod targets;
