//! Shared inputs whose change no reviewer would see (pure): changed since the root's last
//! apply, yet no resource change of the plan reaches them. They feed only outputs, or nothing
//! in the plan; the next apply takes the new value and records it as applied. Said only when
//! every change was traced to the end (an unresolved reference might hide the input).

use serde_json::Value;

use super::{DriftReport, InputStatus, Verdict};
use crate::terraform::PlanJson;

/// Each such input (name) with the root outputs whose expression reads its variable.
pub fn inputs_reaching_no_resource(
    plan: &PlanJson<'_>,
    statuses: &[InputStatus],
    report: &DriftReport,
) -> Vec<(String, Vec<String>)> {
    let untraced = report
        .changes
        .iter()
        .any(|c| c.verdict == Verdict::Unresolved || !c.unresolved.is_empty());
    if untraced {
        return Vec::new();
    }
    let reached: Vec<&String> = report.changes.iter().flat_map(|c| &c.inputs).collect();
    statuses
        .iter()
        .filter(|s| s.changed_since_apply && !reached.contains(&&s.name))
        .map(|s| (s.name.clone(), outputs_reading(plan, &s.variable)))
        .collect()
}

/// Root outputs whose expression references `var.<variable>`.
fn outputs_reading(plan: &PlanJson<'_>, variable: &str) -> Vec<String> {
    let Some(config) = &plan.configuration else {
        return Vec::new();
    };
    config
        .root_module
        .outputs
        .iter()
        .filter(|(_, output)| {
            output
                .expression
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                .is_some_and(|expr| references_variable(&expr, variable))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Whether any `references` list in the expression tree names `var.<variable>` (or a part of
/// it: `var.x[0]`, `var.x.key`).
fn references_variable(expr: &Value, variable: &str) -> bool {
    let whole = format!("var.{variable}");
    let names_it = |r: &Value| {
        r.as_str().is_some_and(|r| {
            r == whole || r.starts_with(&format!("{whole}.")) || r.starts_with(&format!("{whole}["))
        })
    };
    match expr {
        Value::Object(map) => map.iter().any(|(key, value)| match (key.as_str(), value) {
            ("references", Value::Array(refs)) => refs.iter().any(names_it),
            _ => references_variable(value, variable),
        }),
        Value::Array(items) => items.iter().any(|v| references_variable(v, variable)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_drift::{fingerprint, ChangeAttribution};
    use crate::terraform::parse_plan_json;

    const PLAN: &str = r#"{"format_version":"1.0","terraform_version":"1.0.3","resource_changes":[],
      "configuration":{"root_module":{"outputs":{
        "admins":{"expression":{"references":["var.admin_cidrs"]}},
        "first":{"expression":{"references":["var.admin_cidrs[0]","var.admin_cidrs"]}},
        "other":{"expression":{"references":["var.admin_cidrs_old"]}},
        "fixed":{"expression":{"constant_value":"x"}}
      }}}}"#;

    fn status(name: &str, changed: bool) -> InputStatus {
        let fp = fingerprint(b"k", name, "v");
        InputStatus {
            name: name.into(),
            variable: name.to_lowercase(),
            current: fp.clone(),
            last_applied: Some(fp),
            committed_lock: None,
            changed_since_apply: changed,
            lock_matches: None,
            lock_updated_in_pr: false,
        }
    }

    #[test]
    fn a_changed_input_no_resource_change_is_attributed_to_is_named_with_its_outputs() {
        let plan = parse_plan_json(PLAN).unwrap();
        let statuses = [
            status("ADMIN_CIDRS", true),
            status("VPN_CIDRS", true),
            status("UNCHANGED", false),
        ];
        let report = DriftReport {
            changes: vec![reaching("VPN_CIDRS")],
            warnings: Vec::new(),
        };
        let got = inputs_reaching_no_resource(&plan, &statuses, &report);
        assert_eq!(
            got,
            [(
                "ADMIN_CIDRS".to_string(),
                vec!["admins".to_string(), "first".to_string()]
            )]
        );
    }

    /// A change that reaches `input` (whatever explains it).
    fn reaching(input: &str) -> ChangeAttribution {
        ChangeAttribution {
            address: "fake_thing.cluster".into(),
            actions: vec!["update".into()],
            attribute_paths: vec!["depends_value".into()],
            causes: Vec::new(),
            inputs: vec![input.into()],
            changed_inputs: vec![input.into()],
            changed_input_paths: Default::default(),
            explained_by_diff: None,
            diff_paths: Vec::new(),
            drifted_resources: Vec::new(),
            unresolved: Vec::new(),
            verdict: Verdict::ExplainedByLockfile {
                inputs: vec![input.into()],
            },
        }
    }

    #[test]
    fn nothing_is_said_when_a_change_could_not_be_traced() {
        let plan = parse_plan_json(PLAN).unwrap();
        let untraced = ChangeAttribution {
            unresolved: vec!["local.cidrs".into()],
            ..reaching("OTHER")
        };
        let report = DriftReport {
            changes: vec![untraced],
            warnings: Vec::new(),
        };
        assert!(
            inputs_reaching_no_resource(&plan, &[status("ADMIN_CIDRS", true)], &report).is_empty()
        );
    }

    #[test]
    fn nested_references_count_and_lookalike_names_do_not() {
        let nested: Value = serde_json::from_str(
            r#"{"a":[{"b":{"references":["var.x.key"]}}],"references":["local.y"]}"#,
        )
        .unwrap();
        assert!(references_variable(&nested, "x"));
        assert!(!references_variable(&nested, "y"));
        let lookalike: Value = serde_json::from_str(r#"{"references":["var.xy"]}"#).unwrap();
        assert!(!references_variable(&lookalike, "x"));
    }
}
