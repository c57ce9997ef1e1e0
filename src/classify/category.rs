//! The fixed failure taxonomy (`design/results.md`): stable ids, labels and advice.

use serde::{Deserialize, Serialize};

/// Why a resource failed, from a fixed list. Serialized as its stable snake_case id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    PermissionMissing,
    PropagationDelay,
    Throttled,
    QuotaExceeded,
    CapacityUnavailable,
    AlreadyExists,
    NotFound,
    DependencyViolation,
    Conflict,
    InvalidRequest,
    Timeout,
    CredentialsInvalid,
    ConfigurationError,
    StateLock,
    /// Terraform refused a saved plan: the state changed after the plan was made (an earlier
    /// apply of the same plan got part-way).
    PlanStale,
    /// The sandboxed run hit one of the server's resource limits (memory, processes, disk,
    /// output).
    ResourceLimit,
    /// tfgate's sandbox refused a connection: the endpoint is not on the project's egress
    /// allowlist.
    EgressBlocked,
    /// `init` could not install a provider the policy's `providers` does not list.
    ProviderNotAllowed,
    Unknown,
}

impl Category {
    /// Every category, in the order of the taxonomy table.
    pub const ALL: [Category; 19] = [
        Category::PermissionMissing,
        Category::PropagationDelay,
        Category::Throttled,
        Category::QuotaExceeded,
        Category::CapacityUnavailable,
        Category::AlreadyExists,
        Category::NotFound,
        Category::DependencyViolation,
        Category::Conflict,
        Category::InvalidRequest,
        Category::Timeout,
        Category::CredentialsInvalid,
        Category::ConfigurationError,
        Category::StateLock,
        Category::PlanStale,
        Category::ResourceLimit,
        Category::EgressBlocked,
        Category::ProviderNotAllowed,
        Category::Unknown,
    ];

    /// Stable id, exactly as in the taxonomy (and as serialized).
    pub fn id(self) -> &'static str {
        match self {
            Category::PermissionMissing => "permission_missing",
            Category::PropagationDelay => "propagation_delay",
            Category::Throttled => "throttled",
            Category::QuotaExceeded => "quota_exceeded",
            Category::CapacityUnavailable => "capacity_unavailable",
            Category::AlreadyExists => "already_exists",
            Category::NotFound => "not_found",
            Category::DependencyViolation => "dependency_violation",
            Category::Conflict => "conflict",
            Category::InvalidRequest => "invalid_request",
            Category::Timeout => "timeout",
            Category::CredentialsInvalid => "credentials_invalid",
            Category::ConfigurationError => "configuration_error",
            Category::StateLock => "state_lock",
            Category::PlanStale => "plan_stale",
            Category::ResourceLimit => "resource_limit",
            Category::EgressBlocked => "egress_blocked",
            Category::ProviderNotAllowed => "provider_not_allowed",
            Category::Unknown => "unknown",
        }
    }

    /// Parses a stable id back into a category.
    pub fn from_id(id: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Short human label for a result table.
    pub fn label(self) -> &'static str {
        match self {
            Category::PermissionMissing => "permission missing",
            Category::PropagationDelay => "possibly propagation delay",
            Category::Throttled => "throttled",
            Category::QuotaExceeded => "quota exceeded",
            Category::CapacityUnavailable => "capacity unavailable",
            Category::AlreadyExists => "already exists",
            Category::NotFound => "not found",
            Category::DependencyViolation => "dependency violation",
            Category::Conflict => "conflicting operation",
            Category::InvalidRequest => "invalid request",
            Category::Timeout => "timeout",
            Category::CredentialsInvalid => "credentials invalid",
            Category::ConfigurationError => "configuration error",
            Category::StateLock => "state locked",
            Category::PlanStale => "plan stale",
            Category::ResourceLimit => "resource limit",
            Category::EgressBlocked => "egress blocked",
            Category::ProviderNotAllowed => "provider not allowed",
            Category::Unknown => "unknown",
        }
    }

    /// One sentence of advice, shown once per category present in a result comment.
    pub fn advice(self) -> &'static str {
        match self {
            Category::PermissionMissing => {
                "Add the named IAM action to the apply role's policy (or lift the named deny), then plan the root again and `/apply`."
            }
            Category::PropagationDelay => {
                "Something created moments earlier was not visible yet; plan the root again and `/apply`; if it repeats add an explicit dependency or a wait."
            }
            Category::Throttled => {
                "AWS throttled the requests; plan the root again and `/apply`, and lower `parallelism` for this project if it repeats."
            }
            Category::QuotaExceeded => {
                "A service quota was reached; raise the quota or free capacity, then plan the root again and `/apply`."
            }
            Category::CapacityUnavailable => {
                "AWS had no capacity for this request; choose another Availability Zone or type, or retry later."
            }
            Category::AlreadyExists => {
                "The resource already exists outside this state; import it or give it another name."
            }
            Category::NotFound => "A referenced object does not exist; check the reference.",
            Category::DependencyViolation => {
                "Other resources still depend on this one; remove the dependants first or order the destroy."
            }
            Category::Conflict => {
                "Another operation on the same resource was in progress; after it finishes, plan the root again and `/apply`."
            }
            Category::InvalidRequest => "AWS rejected a value; fix the configuration value.",
            Category::Timeout => {
                "Waiting for the resource timed out; inspect the resource in AWS, then plan the root again and `/apply`."
            }
            Category::CredentialsInvalid => {
                "The AWS credentials were rejected; check the apply role and its session."
            }
            Category::ConfigurationError => {
                "Terraform rejected the configuration; fix the file and line shown."
            }
            Category::StateLock => {
                "The state is locked by another run; wait for it to finish, or have an admin unlock the state."
            }
            Category::PlanStale => {
                "Terraform refused the saved plan because the state changed after it was made; run `/plan` for this root, review it, then `/apply`."
            }
            Category::ResourceLimit => {
                "The run hit a resource limit of the server (named in the notes); make the run smaller, or ask an admin to raise the limit."
            }
            Category::EgressBlocked => {
                "The endpoint is not on this project's egress allowlist: an admin can add it under `egress:` in the policy, then plan the root again."
            }
            Category::ProviderNotAllowed => {
                "The provider is not in this project's `providers:` list: an admin can add it under `providers:` in the policy, then plan the root again."
            }
            Category::Unknown => "The cause was not recognised; an admin can read the raw log.",
        }
    }

    /// The advice of a failure that names what it is about: the endpoint of `egress_blocked`,
    /// the provider source of `provider_not_allowed`, the denied role of `permission_missing`.
    /// `subject` is shown in code spans, so it must already be PR-safe (redacted).
    pub fn advice_naming(self, subject: &AdviceSubject) -> String {
        match (self, subject) {
            (Category::EgressBlocked, AdviceSubject::Endpoint(e)) => format!(
                "`{e}` is not on this project's egress allowlist: an admin can add it under `egress:` in the policy, then plan the root again."
            ),
            (Category::ProviderNotAllowed, AdviceSubject::Provider(p)) => format!(
                "`init` could not install `{p}`, which this project's `providers:` does not list: an admin can add it under `providers:` in the policy, then plan the root again."
            ),
            (Category::PermissionMissing, AdviceSubject::Role { kind, name }) => {
                let role = match name {
                    Some(n) => format!("the {} role `{n}`", kind.word()),
                    None => format!("the {} role", kind.word()),
                };
                let then = match kind {
                    RoleKind::Plan => "run `/plan` again",
                    RoleKind::Apply => "plan the root again and `/apply`",
                };
                format!(
                    "An AWS account owner or admin can add the named IAM action to the policy of {role} (or lift the named deny); then {then}."
                )
            }
            _ => self.advice().to_string(),
        }
    }
}

/// Which of a project's two roles a run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleKind {
    Plan,
    Apply,
}

impl RoleKind {
    pub fn word(self) -> &'static str {
        match self {
            RoleKind::Plan => "plan",
            RoleKind::Apply => "apply",
        }
    }
}

/// What a category's advice names (already PR-safe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdviceSubject {
    /// `host:port` (a loopback address as it is, any other address redacted).
    Endpoint(String),
    /// A provider source, `registry.terraform.io/hashicorp/aws`.
    Provider(String),
    /// The role a permission failure was denied to, by name only (never its ARN).
    Role {
        kind: RoleKind,
        name: Option<String>,
    },
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_serde_and_from_id() {
        for c in Category::ALL {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.id()));
            assert_eq!(serde_json::from_str::<Category>(&json).unwrap(), c);
            assert_eq!(Category::from_id(c.id()), Some(c));
        }
        assert_eq!(Category::from_id("auth_invalid"), None);
    }

    #[test]
    fn ids_match_the_taxonomy_table() {
        let ids: Vec<&str> = Category::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(
            ids,
            [
                "permission_missing",
                "propagation_delay",
                "throttled",
                "quota_exceeded",
                "capacity_unavailable",
                "already_exists",
                "not_found",
                "dependency_violation",
                "conflict",
                "invalid_request",
                "timeout",
                "credentials_invalid",
                "configuration_error",
                "state_lock",
                "plan_stale",
                "resource_limit",
                "egress_blocked",
                "provider_not_allowed",
                "unknown",
            ]
        );
    }

    #[test]
    fn labels_and_advice_are_distinct_single_sentences() {
        let mut labels: Vec<&str> = Category::ALL.iter().map(|c| c.label()).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), Category::ALL.len());
        for c in Category::ALL {
            let advice = c.advice();
            assert!(advice.ends_with('.'), "{c}: {advice}");
            assert_eq!(advice.matches(". ").count(), 0, "{c}: one sentence");
        }
        assert!(Category::Throttled.advice().contains("parallelism"));
        assert!(Category::PropagationDelay.advice().contains("/apply"));
        assert!(Category::EgressBlocked.advice().contains("`egress:`"));
        assert!(Category::ProviderNotAllowed
            .advice()
            .contains("`providers:`"));
    }

    #[test]
    fn advice_names_the_endpoint_the_provider_and_the_denied_role() {
        let e = AdviceSubject::Endpoint("127.0.0.1:9000".into());
        assert_eq!(
            Category::EgressBlocked.advice_naming(&e),
            "`127.0.0.1:9000` is not on this project's egress allowlist: an admin can add it under `egress:` in the policy, then plan the root again."
        );
        let p = AdviceSubject::Provider("registry.terraform.io/hashicorp/aws".into());
        assert!(Category::ProviderNotAllowed
            .advice_naming(&p)
            .contains("`registry.terraform.io/hashicorp/aws`, which this project's `providers:` does not list"));
        let plan = AdviceSubject::Role {
            kind: RoleKind::Plan,
            name: Some("tfgate-plan".into()),
        };
        let text = Category::PermissionMissing.advice_naming(&plan);
        assert!(text.contains("the plan role `tfgate-plan`"), "{text}");
        assert!(
            text.contains("run `/plan` again") && !text.contains("apply"),
            "{text}"
        );
        let apply = AdviceSubject::Role {
            kind: RoleKind::Apply,
            name: None,
        };
        let text = Category::PermissionMissing.advice_naming(&apply);
        assert!(text.contains("the apply role (or"), "{text}");
        // A subject of another kind leaves the category's own advice.
        assert_eq!(
            Category::Throttled.advice_naming(&e),
            Category::Throttled.advice()
        );
        for c in Category::ALL {
            for s in [&e, &p, &plan, &apply] {
                let advice = c.advice_naming(s);
                assert!(
                    advice.ends_with('.') && !advice.contains(". "),
                    "{c}: {advice}"
                );
            }
        }
    }
}
