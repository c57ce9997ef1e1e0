//! The status a run ends with: a plan or an apply that succeeded, failed, or could not start
//! (which counts as failed, so that its root is free again and it is never applied).

use super::record::RunStatus;
use crate::model::job::RunCommand;

/// How the run went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    Succeeded,
    Failed,
    /// The checkout or the credentials could not be prepared.
    NotStarted,
}

pub fn end_status(command: RunCommand, end: RunEnd) -> RunStatus {
    match (command, end) {
        (RunCommand::Plan, RunEnd::Succeeded) => RunStatus::Planned,
        (RunCommand::Plan, RunEnd::Failed | RunEnd::NotStarted) => RunStatus::PlanFailed,
        (RunCommand::Apply, RunEnd::Succeeded) => RunStatus::Applied,
        (RunCommand::Apply, RunEnd::Failed | RunEnd::NotStarted) => RunStatus::ApplyFailed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_ends_with_its_status() {
        use RunCommand::*;
        use RunEnd::*;
        let table = [
            (Plan, Succeeded, RunStatus::Planned),
            (Plan, Failed, RunStatus::PlanFailed),
            (Plan, NotStarted, RunStatus::PlanFailed),
            (Apply, Succeeded, RunStatus::Applied),
            (Apply, Failed, RunStatus::ApplyFailed),
            (Apply, NotStarted, RunStatus::ApplyFailed),
        ];
        for (command, end, want) in table {
            assert_eq!(end_status(command, end), want, "{command:?} {end:?}");
        }
    }
}
