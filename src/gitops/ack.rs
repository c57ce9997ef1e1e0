//! `/ack-deploy` (pure): who may accept what the `tfgate/deploy` check says needs
//! acknowledgement, and what accepting does to the check on the current head.

use crate::model::view::AckResult;
use crate::model::PolicyDenial;
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

impl AckRefusal {
    /// The refusal as the policy denial the reply words.
    pub fn denial(&self) -> PolicyDenial {
        match self {
            AckRefusal::NoFolders => PolicyDenial::AckDeployNoFolders,
            AckRefusal::Permission { needed, has } => PolicyDenial::AckDeployPermission {
                needed: needed.to_string(),
                has: has.to_string(),
            },
        }
    }
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
