//! `/ack-deploy` (pure): who may accept what the `tfgate/deploy` check says needs
//! acknowledgement, and what accepting does to the check on the current head.

use serde::{Deserialize, Serialize};

use crate::policy::{GitHubPermission, GitopsFolder};

/// Why `/ack-deploy` is refused before the preview is even computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AckRefusal {
    /// The policy names no GitOps folder for this repository.
    NoFolders,
    /// The commenter's permission is below the folders' `acknowledge.min_permission`.
    Permission {
        needed: GitHubPermission,
        has: GitHubPermission,
    },
}

/// The permission `/ack-deploy` needs: the highest `acknowledge.min_permission` of the folders.
pub fn needed_permission(folders: &[GitopsFolder]) -> Option<GitHubPermission> {
    folders.iter().map(|f| f.acknowledge_min_permission).max()
}

/// Whether `permission` may acknowledge deploys under `folders`.
pub fn may_acknowledge(
    folders: &[GitopsFolder],
    permission: GitHubPermission,
) -> Result<(), AckRefusal> {
    let needed = needed_permission(folders).ok_or(AckRefusal::NoFolders)?;
    if permission < needed {
        return Err(AckRefusal::Permission {
            needed,
            has: permission,
        });
    }
    Ok(())
}

/// What an allowed `/ack-deploy` does, given the head's preview conclusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckResult {
    /// The check was `action_required`: it is posted again as `success`, acknowledged.
    Acknowledged,
    /// Nothing on this head needs acknowledgement (the check is `success` already).
    NothingToAcknowledge,
    /// The preview fails (YAML does not parse): fix that first; the check stays `failure`.
    PreviewFails,
    /// The head has no `tfgate/deploy` check yet: nobody can have seen what would be accepted.
    NotReady,
    /// The preview recomputed now differs from the one shown (the base branch moved): the new
    /// one is posted, and nothing is acknowledged.
    PreviewChanged,
}

/// What acknowledging does, given the conclusion of the head's latest `tfgate/deploy` check
/// (`None`: there is none yet). Only what was shown can be accepted.
pub fn ack_result(shown: Option<&str>) -> AckResult {
    match shown {
        None => AckResult::NotReady,
        Some("action_required") => AckResult::Acknowledged,
        Some("success") => AckResult::NothingToAcknowledge,
        Some(_) => AckResult::PreviewFails,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitops::Tool;
    use GitHubPermission::{Admin, Maintain, Read, Write};

    fn folder(min: GitHubPermission) -> GitopsFolder {
        GitopsFolder {
            path: "deploy/**".into(),
            tool: Tool::Argocd,
            acknowledge_min_permission: min,
        }
    }

    #[test]
    fn the_strictest_folder_decides_who_may_acknowledge() {
        let folders = [folder(Write), folder(Maintain)];
        let cases = [
            (Admin, Ok(())),
            (Maintain, Ok(())),
            (
                Write,
                Err(AckRefusal::Permission {
                    needed: Maintain,
                    has: Write,
                }),
            ),
            (
                Read,
                Err(AckRefusal::Permission {
                    needed: Maintain,
                    has: Read,
                }),
            ),
        ];
        for (permission, want) in cases {
            assert_eq!(may_acknowledge(&folders, permission), want, "{permission}");
        }
        assert_eq!(may_acknowledge(&[], Admin), Err(AckRefusal::NoFolders));
        assert_eq!(may_acknowledge(&[folder(Write)], Write), Ok(()));
    }

    #[test]
    fn only_an_action_required_check_is_acknowledged() {
        assert_eq!(ack_result(Some("action_required")), AckResult::Acknowledged);
        assert_eq!(ack_result(Some("success")), AckResult::NothingToAcknowledge);
        assert_eq!(ack_result(Some("failure")), AckResult::PreviewFails);
        assert_eq!(ack_result(None), AckResult::NotReady);
    }
}
