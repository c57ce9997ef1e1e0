//! One PR as a job read it (like bors's `PullRequestData`): its facts, the admin policy with
//! the default branch's `tfgate.yaml` merged in, and how far its changes beyond the file list
//! could be read. A job reads it once (`worker::pr_snapshot`) and passes it down; plain data.

use super::{PolicyProblem, PrFacts, RepoPolicy};

/// What one job read of a PR.
#[derive(Debug, Clone)]
pub struct PrSnapshot {
    /// The PR's facts; `module_calls` and `changed_inputs` are filled when `changes` was read.
    pub facts: PrFacts,
    /// The admin policy with the default branch's layout merged in.
    pub policy: RepoPolicy,
    /// Problems of that layout (none when the policy does not allow repo layouts).
    pub layout_problems: Vec<PolicyProblem>,
    /// Whether the changes beyond the file list were read, and what of them was not.
    pub changes: ChangesRead,
}

/// The PR's changes beyond its file list (the base commit's module graph, the changed lines
/// of `tfgate.inputs.lock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChangesRead {
    /// Not asked for: only the roots the PR changes directly are known.
    #[default]
    NotRead,
    /// Read; what could not be is named (the roots the PR changes directly are still known).
    Read {
        modules_unread: bool,
        inputs_lock_unread: bool,
    },
}

impl ChangesRead {
    /// Read, and nothing was missing.
    pub fn complete(self) -> bool {
        matches!(
            self,
            ChangesRead::Read {
                modules_unread: false,
                inputs_lock_unread: false
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::ChangesRead;

    #[test]
    fn changes_are_complete_only_when_read_whole() {
        let read = |modules_unread, inputs_lock_unread| ChangesRead::Read {
            modules_unread,
            inputs_lock_unread,
        };
        let table = [
            (ChangesRead::NotRead, false),
            (read(false, false), true),
            (read(true, false), false),
            (read(false, true), false),
            (read(true, true), false),
        ];
        for (changes, complete) in table {
            assert_eq!(changes.complete(), complete, "{changes:?}");
        }
    }
}
