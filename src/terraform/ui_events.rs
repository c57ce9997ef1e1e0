//! Payloads of UI stream messages: hook objects, change events, summaries, outputs.

use serde::{Deserialize, Serialize};

use super::instance_key::InstanceKey;
use super::outcome::Action;

/// `hook.resource` / `change.resource`: one resource instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookResource {
    /// Absolute instance address, e.g. `module.pets.random_pet.pet["friend"]`.
    pub addr: String,
    /// Module address, `""` for the root module.
    #[serde(default)]
    pub module: String,
    /// Module-relative address.
    #[serde(default)]
    pub resource: String,
    #[serde(default)]
    pub implied_provider: String,
    #[serde(default)]
    pub resource_type: String,
    #[serde(default)]
    pub resource_name: String,
    #[serde(default)]
    pub resource_key: Option<InstanceKey>,
}

/// `apply_start` / `apply_progress` / `apply_complete` / `apply_errored` hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyHook {
    pub resource: HookResource,
    /// UI action string (`create`, `update`, `delete`, `read`, …); see [`ApplyHook::action`].
    #[serde(default)]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_key: Option<String>,
    /// Provider id of the object (may be an ARN: never post it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<f64>,
}

impl ApplyHook {
    pub fn action(&self) -> Option<Action> {
        Action::from_ui(&self.action)
    }
}

/// `provision_start` / `_progress` / `_complete` / `_errored` hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvisionHook {
    pub resource: HookResource,
    #[serde(default)]
    pub provisioner: String,
    /// Provisioner output line (`provision_progress` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// `refresh_start` / `refresh_complete` hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshHook {
    pub resource: HookResource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_value: Option<String>,
}

/// Ephemeral resource hook (Terraform `ephemeral_op_*`, OpenTofu `ephemeral_action_*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EphemeralHook {
    pub resource: HookResource,
    /// `open`, `renew`, `close` (Terraform only; OpenTofu sends `Msg` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<f64>,
    #[serde(rename = "Msg", default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
}

/// Phase of an ephemeral resource operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EphemeralPhase {
    Start,
    Progress,
    Complete,
    Errored,
}

/// `planned_change` / `resource_drift` payload (`change`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceChangeEvent {
    pub resource: HookResource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_resource: Option<HookResource>,
    /// UI action string; see [`ResourceChangeEvent::action`].
    #[serde(default)]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importing: Option<Importing>,
}

impl ResourceChangeEvent {
    pub fn action(&self) -> Option<Action> {
        Action::from_ui(&self.action)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Importing {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `change_summary` payload (`changes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeSummary {
    #[serde(default)]
    pub add: u64,
    #[serde(default)]
    pub change: u64,
    #[serde(default)]
    pub remove: u64,
    #[serde(default)]
    pub import: u64,
    #[serde(default)]
    pub action_invocation: u64,
    #[serde(default)]
    pub action_fail: u64,
    /// `plan`, `apply` or `destroy`.
    #[serde(default)]
    pub operation: String,
}

/// One entry of an `outputs` message. The output `value` is deliberately never parsed:
/// UI 1.0 (Terraform ≤ 1.3) prints sensitive values in clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputInfo {
    #[serde(default)]
    pub sensitive: bool,
    /// Plan-time action (`create`, `update`, `delete`, `noop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_value_is_not_kept() {
        let info: OutputInfo =
            serde_json::from_str(r#"{"sensitive":true,"type":"string","value":"my-secret"}"#)
                .unwrap();
        assert!(info.sensitive);
        assert!(!serde_json::to_string(&info).unwrap().contains("my-secret"));
    }

    #[test]
    fn change_summary_defaults_missing_counts() {
        let s: ChangeSummary =
            serde_json::from_str(r#"{"add":2,"operation":"plan","future":1}"#).unwrap();
        assert_eq!((s.add, s.change, s.remove, s.import), (2, 0, 0, 0));
        assert_eq!(s.operation, "plan");
    }

    #[test]
    fn hook_action_maps_to_action() {
        let hook: ApplyHook = serde_json::from_str(
            r#"{"resource":{"addr":"a.b","resource_key":"k"},"action":"delete","elapsed_seconds":1.5}"#,
        )
        .unwrap();
        assert_eq!(hook.action(), Some(Action::Delete));
        assert_eq!(hook.elapsed_seconds, Some(1.5));
        assert_eq!(
            hook.resource.resource_key,
            Some(InstanceKey::Str("k".into()))
        );
    }
}
