//! Tests of the policy file schema: durations, and that policies/README.md documents every key.

mod tests {
    use super::super::*;

    #[test]
    fn durations() {
        let cases = [
            (DurationSpec::Seconds(900), Some(900)),
            (DurationSpec::Text("15m".into()), Some(900)),
            (DurationSpec::Text("2h".into()), Some(7200)),
            (DurationSpec::Text("45s".into()), Some(45)),
            (DurationSpec::Text("120".into()), Some(120)),
            (DurationSpec::Text("1d".into()), None),
            (DurationSpec::Text("".into()), None),
            (DurationSpec::Text("m".into()), None),
        ];
        for (spec, want) in cases {
            assert_eq!(spec.seconds(), want, "{spec:?}");
        }
    }

    #[test]
    fn permissions_are_ordered() {
        use GitHubPermission::*;
        assert!(
            None < Read && Read < Triage && Triage < Write && Write < Maintain && Maintain < Admin
        );
    }

    #[test]
    fn minimal_file_gets_defaults() {
        let file: PolicyFile = serde_yaml::from_str("repos: [acme/*]").unwrap();
        assert_eq!(file.apply_requirements, default_apply_requirements());
        assert_eq!(
            file.permissions.apply.min_permission,
            GitHubPermission::Write
        );
        assert_eq!(file.on_input_drift, OnInputDrift::Block);
        assert_eq!(file.min_approvals, 1);
        assert!(!file.allow_fork_prs && !file.allow_repo_layout);
    }
}

mod readme_tests {
    use super::super::*;
    use serde::de::DeserializeOwned;

    const README: &str = include_str!("../../policies/README.md");

    /// The field names serde knows for `T`, read from its "unknown field" error.
    fn fields<T: DeserializeOwned + fmt::Debug>() -> Vec<String> {
        let err = serde_yaml::from_str::<T>("__no_such_key__: 1")
            .unwrap_err()
            .to_string();
        let list = err
            .split("expected one of ")
            .nth(1)
            .or_else(|| err.split("expected ").nth(1))
            .unwrap_or("");
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn readme_documents_every_key() {
        let mut all = Vec::new();
        all.extend(fields::<PolicyFile>());
        all.extend(fields::<ProjectDefaults>());
        all.extend(fields::<ProjectPolicy>());
        all.extend(fields::<Permissions>());
        all.extend(fields::<CommandPermission>());
        all.extend(fields::<InputSpec>());
        all.extend(fields::<CloudTrail>());
        all.extend(fields::<RequiredCheck>());
        all.extend(fields::<DriftDetectionSpec>());
        all.extend(fields::<AdminsSpec>());
        all.extend(fields::<PlanPolicySpec>());
        all.extend(fields::<PlanPolicyOwnersSpec>());
        assert!(all.len() > 40, "field extraction failed: {all:?}");
        for field in all {
            assert!(
                README.contains(&format!("`{field}`")),
                "policies/README.md does not document `{field}`"
            );
        }
    }

    #[test]
    fn readme_lists_every_rule_id() {
        for (id, _) in crate::policy::RULES {
            assert!(
                README.contains(&format!("`{id}`")),
                "policies/README.md does not list rule `{id}`"
            );
        }
    }
}
