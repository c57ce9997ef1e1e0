//! Admin and preview commands of the `tfgate` binary that need no server.

pub mod drift;
pub mod gitops;
pub mod logs;
pub mod operator;
pub mod operator_cmd;
pub mod plan_policy;
pub mod policy;
pub mod policy_cmd;
pub mod results;
pub mod run;
