//! IAM access-denied wording: which action was denied and by which kind of policy.
//!
//! Wording reference: <https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html>
//! (`... is not authorized to perform: ACTION [on resource: ARN] because no <type> policy allows the
//! ACTION action` / `... with an explicit deny in a(n) <type> policy[: policy-arn]`).

use crate::model::DenyKind;
use once_cell::sync::Lazy;
use regex::Regex;

impl DenyKind {
    pub const ALL: [DenyKind; 14] = [
        DenyKind::Implicit,
        DenyKind::ImplicitResourcePolicy,
        DenyKind::ImplicitPermissionsBoundary,
        DenyKind::ImplicitSessionPolicy,
        DenyKind::ImplicitVpcEndpoint,
        DenyKind::ExplicitScp,
        DenyKind::ExplicitRcp,
        DenyKind::ExplicitPermissionsBoundary,
        DenyKind::ExplicitSessionPolicy,
        DenyKind::ExplicitIdentityPolicy,
        DenyKind::ExplicitResourcePolicy,
        DenyKind::ExplicitVpcEndpoint,
        DenyKind::ExplicitTrustPolicy,
        DenyKind::ExplicitOther,
    ];

    /// Stable snake_case id (as serialized).
    pub fn id(self) -> &'static str {
        match self {
            DenyKind::Implicit => "implicit",
            DenyKind::ImplicitResourcePolicy => "implicit_resource_policy",
            DenyKind::ImplicitPermissionsBoundary => "implicit_permissions_boundary",
            DenyKind::ImplicitSessionPolicy => "implicit_session_policy",
            DenyKind::ImplicitVpcEndpoint => "implicit_vpc_endpoint",
            DenyKind::ExplicitScp => "explicit_scp",
            DenyKind::ExplicitRcp => "explicit_rcp",
            DenyKind::ExplicitPermissionsBoundary => "explicit_permissions_boundary",
            DenyKind::ExplicitSessionPolicy => "explicit_session_policy",
            DenyKind::ExplicitIdentityPolicy => "explicit_identity_policy",
            DenyKind::ExplicitResourcePolicy => "explicit_resource_policy",
            DenyKind::ExplicitVpcEndpoint => "explicit_vpc_endpoint",
            DenyKind::ExplicitTrustPolicy => "explicit_trust_policy",
            DenyKind::ExplicitOther => "explicit_other",
        }
    }

    /// Human label for a result table.
    pub fn label(self) -> &'static str {
        match self {
            DenyKind::Implicit => "no identity-based policy allows it",
            DenyKind::ImplicitResourcePolicy => "no resource-based policy allows it",
            DenyKind::ImplicitPermissionsBoundary => "the permissions boundary does not allow it",
            DenyKind::ImplicitSessionPolicy => "the session policy does not allow it",
            DenyKind::ImplicitVpcEndpoint => "the VPC endpoint policy does not allow it",
            DenyKind::ExplicitScp => "explicit deny in a service control policy",
            DenyKind::ExplicitRcp => "explicit deny in a resource control policy",
            DenyKind::ExplicitPermissionsBoundary => "explicit deny in a permissions boundary",
            DenyKind::ExplicitSessionPolicy => "explicit deny in a session policy",
            DenyKind::ExplicitIdentityPolicy => "explicit deny in an identity-based policy",
            DenyKind::ExplicitResourcePolicy => "explicit deny in a resource-based policy",
            DenyKind::ExplicitVpcEndpoint => "explicit deny in a VPC endpoint policy",
            DenyKind::ExplicitTrustPolicy => "explicit deny in the role trust policy",
            DenyKind::ExplicitOther => "explicit deny",
        }
    }

    pub fn is_explicit(self) -> bool {
        !matches!(
            self,
            DenyKind::Implicit
                | DenyKind::ImplicitResourcePolicy
                | DenyKind::ImplicitPermissionsBoundary
                | DenyKind::ImplicitSessionPolicy
                | DenyKind::ImplicitVpcEndpoint
        )
    }
}

static EXPLICIT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)with an explicit deny in (?:an? |the )?([a-z][a-z -]*?)(?:policy\b|boundary\b|[:.,]|$)(?:.*?(transitively through a service control policy))?").unwrap()
});
static IMPLICIT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)because no ([a-z][a-z -]*?) (?:policy|boundary|boundaries) allows?").unwrap()
});

/// Parses the deny kind from IAM denial wording, if the text names one.
pub fn deny_kind(text: &str) -> Option<DenyKind> {
    if let Some(c) = EXPLICIT.captures(text) {
        if c.get(2).is_some() {
            return Some(DenyKind::ExplicitVpcEndpoint);
        }
        let t = c[1].to_ascii_lowercase();
        let kind = if t.contains("service control") {
            DenyKind::ExplicitScp
        } else if t.contains("resource control") {
            DenyKind::ExplicitRcp
        } else if t.contains("permissions") {
            DenyKind::ExplicitPermissionsBoundary
        } else if t.contains("session") {
            DenyKind::ExplicitSessionPolicy
        } else if t.contains("identity") {
            DenyKind::ExplicitIdentityPolicy
        } else if t.contains("resource") {
            DenyKind::ExplicitResourcePolicy
        } else if t.contains("vpc endpoint") {
            DenyKind::ExplicitVpcEndpoint
        } else if t.contains("trust") {
            DenyKind::ExplicitTrustPolicy
        } else {
            DenyKind::ExplicitOther
        };
        return Some(kind);
    }
    let c = IMPLICIT.captures(text)?;
    let t = c[1].to_ascii_lowercase();
    Some(if t.contains("permissions") {
        DenyKind::ImplicitPermissionsBoundary
    } else if t.contains("session") {
        DenyKind::ImplicitSessionPolicy
    } else if t.contains("vpc endpoint") {
        DenyKind::ImplicitVpcEndpoint
    } else if t.contains("resource") {
        DenyKind::ImplicitResourcePolicy
    } else {
        DenyKind::Implicit
    })
}

/// An IAM action is `prefix:Name`: prefix letters/digits/`-` (SNS prints it upper-case), name
/// alphanumeric or `*`.
const ACTION: &str = r"([A-Za-z][A-Za-z0-9-]*:[A-Za-z0-9*]+)";

static NAMED_ACTIONS: Lazy<Vec<Regex>> = Lazy::new(|| {
    [
        // IAM format and service-phrased variants ("... is not authorized to perform X on ...").
        format!(r"(?i:not authorized to perform):?\s+{ACTION}"),
        // EKS: "due to missing permissions for 'iam:GetRole'".
        format!(r"(?i:missing permissions? for)\s+'?{ACTION}"),
        // "because no identity-based policy allows the iam:GetRole action".
        format!(r"(?i:policy allows the|boundary allows the)\s+{ACTION}"),
        // "does not have permission to perform: kms:Decrypt", "requires the s3:PutObject permission".
        format!(r"(?i:permissions? to perform):?\s+{ACTION}"),
        format!(r"(?i:requires the)\s+{ACTION}\s+(?i:permission|action)"),
    ]
    .iter()
    .map(|p| Regex::new(p).unwrap())
    .collect()
});

/// `SNS:CreateTopic` → `sns:CreateTopic`.
fn normalize_action(raw: &str) -> String {
    let raw = raw.trim_end_matches(['.', ',']);
    match raw.split_once(':') {
        Some((prefix, name)) => format!("{}:{name}", prefix.to_ascii_lowercase()),
        None => raw.to_string(),
    }
}

/// "The provided execution role does not have permissions to call CreateNetworkInterface on EC2".
static CALL_ON_SERVICE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?i:permissions? to call)\s+([A-Z][A-Za-z0-9]+)\s+(?i:on)\s+([A-Za-z0-9 ]+?)(?:[.,;]|$)",
    )
    .unwrap()
});

/// Returns the denied IAM action as the text names it (longest of the equal candidates wins:
/// some posted messages are cut mid-word, e.g. `allows the dynamodb:C`).
pub fn named_action(text: &str) -> Option<String> {
    let mut best: Option<String> = None;
    for re in NAMED_ACTIONS.iter() {
        if let Some(c) = re.captures(text) {
            let action = normalize_action(&c[1]);
            let better = match &best {
                None => true,
                Some(b) => action.len() > b.len() && action.starts_with(b.as_str()),
            };
            if better {
                best = Some(action);
            }
        }
    }
    if best.is_some() {
        return best;
    }
    let c = CALL_ON_SERVICE.captures(text)?;
    let prefix = super::services::iam_prefix(c[2].trim())?;
    Some(format!("{prefix}:{}", &c[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases from https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html
    #[test]
    fn deny_kinds_from_iam_documentation_wording() {
        let cases = [
            ("User: arn:aws:iam::123456789012:user/MaryMajor is not authorized to perform: codecommit:ListRepositories because no identity-based policy allows the codecommit:ListRepositories action", DenyKind::Implicit),
            ("is not authorized to perform: codecommit:ListRepositories because no resource-based policy allows the codecommit:ListRepositories action", DenyKind::ImplicitResourcePolicy),
            ("is not authorized to perform: codecommit:ListRepositories because no permissions boundary allows the codecommit:ListRepositories action", DenyKind::ImplicitPermissionsBoundary),
            ("is not authorized to perform: codecommit:ListRepositories because no session policy allows the codecommit:ListRepositories action", DenyKind::ImplicitSessionPolicy),
            ("is not authorized to perform: codecommit:ListRepositories because no VPC endpoint policy allows the codecommit:ListRepositories action", DenyKind::ImplicitVpcEndpoint),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a service control policy", DenyKind::ExplicitScp),
            ("is not authorized to perform: s3:GetObject with an explicit deny in a resource control policy", DenyKind::ExplicitRcp),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a permissions boundary", DenyKind::ExplicitPermissionsBoundary),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a sessions policy", DenyKind::ExplicitSessionPolicy),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in an identity-based policy", DenyKind::ExplicitIdentityPolicy),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a resource-based policy", DenyKind::ExplicitResourcePolicy),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a VPC endpoint policy", DenyKind::ExplicitVpcEndpoint),
            ("is not authorized to perform: codecommit:ListRepositories with an explicit deny in a VPC endpoint policy transitively through a service control policy", DenyKind::ExplicitVpcEndpoint),
            ("is not authorized to perform: sts:AssumeRole with an explicit deny in the role trust policy", DenyKind::ExplicitTrustPolicy),
            // Policy ARN suffix (AWS Security Blog, enhanced access denied messages, 2025).
            ("is not authorized to perform: ec2:RunInstances with an explicit deny in a service control policy: arn:aws:organizations::987654321098:policy/o-abc/service_control_policy/p-123.", DenyKind::ExplicitScp),
        ];
        for (text, want) in cases {
            assert_eq!(deny_kind(text), Some(want), "{text}");
        }
        assert_eq!(deny_kind("AccessDenied: Access Denied"), None);
    }

    #[test]
    fn deny_kind_ids_are_unique_and_explicitness_matches_the_name() {
        let mut ids: Vec<&str> = DenyKind::ALL.iter().map(|k| k.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), DenyKind::ALL.len());
        for k in DenyKind::ALL {
            assert_eq!(
                k.is_explicit(),
                k.id().starts_with("explicit"),
                "{}",
                k.id()
            );
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.id())
            );
        }
    }

    #[test]
    fn named_actions() {
        let cases = [
            ("is not authorized to perform: iam:GetRole on resource: role X", Some("iam:GetRole")),
            ("Failed to validate if SLR: AWSServiceRoleForAmazonEKSNodegroup already exists due to missing permissions for 'iam:GetRole'", Some("iam:GetRole")),
            ("AWS Firehose is not authorized to perform kafka:CreateVpcConnection on resource arn:aws:iam::1:role/x", Some("kafka:CreateVpcConnection")),
            ("on resource: arn:aws:dynamodb:us-west-2:1:table/t because no identity-based policy allows the dynamodb:C", Some("dynamodb:C")),
            ("is not authorized to perform: dynamodb:CreateTable on resource: x because no identity-based policy allows the dynamodb:C", Some("dynamodb:CreateTable")),
            ("InvalidParameterValueException: The provided execution role does not have permissions to call CreateNetworkInterface on EC2", Some("ec2:CreateNetworkInterface")),
            ("is not authorized to perform: s3:* on resource", Some("s3:*")),
            ("AuthorizationError: User: arn:aws:iam::1:user/u is not authorized to perform: SNS:CreateTopic on resource: x", Some("sns:CreateTopic")),
            ("Error: https://example.com/docs: see", None),
            ("AccessDenied: Access Denied", None),
        ];
        for (text, want) in cases {
            assert_eq!(named_action(text).as_deref(), want, "{text}");
        }
    }
}
