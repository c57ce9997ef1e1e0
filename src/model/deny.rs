//! Which kind of IAM policy denied a request (`classify::deny` reads it from the denial text).

use serde::{Deserialize, Serialize};

/// Which policy denied the request, as the denial text names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DenyKind {
    /// "because no identity-based policy allows": nothing grants the action.
    Implicit,
    /// "because no resource-based policy allows" (bucket, key, queue ... policy).
    ImplicitResourcePolicy,
    /// "because no permissions boundary allows".
    ImplicitPermissionsBoundary,
    /// "because no session policy allows".
    ImplicitSessionPolicy,
    /// "because no VPC endpoint policy allows".
    ImplicitVpcEndpoint,
    /// "explicit deny in a service control policy" (always worded so for SCPs).
    ExplicitScp,
    /// "explicit deny in a resource control policy".
    ExplicitRcp,
    /// "explicit deny in a permissions boundary".
    ExplicitPermissionsBoundary,
    /// "explicit deny in a session policy".
    ExplicitSessionPolicy,
    /// "explicit deny in an identity-based policy".
    ExplicitIdentityPolicy,
    /// "explicit deny in a resource-based policy".
    ExplicitResourcePolicy,
    /// "explicit deny in a VPC endpoint policy" (also "transitively through a service control policy").
    ExplicitVpcEndpoint,
    /// "explicit deny in the role trust policy".
    ExplicitTrustPolicy,
    /// An explicit deny whose policy type is not one of the documented ones.
    ExplicitOther,
}
