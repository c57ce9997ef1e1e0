//! Parser for the `-json` UI stream of `terraform plan|apply|refresh|destroy` (and OpenTofu):
//! one JSON object per line. Unknown message types and keys are tolerated; an unknown
//! **major** UI version is rejected.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::diagnostic::Diagnostic;
use super::text_decode::strip_bom;
use super::ui_events::{
    ApplyHook, ChangeSummary, EphemeralHook, EphemeralPhase, OutputInfo, ProvisionHook,
    RefreshHook, ResourceChangeEvent,
};
use super::version::{clip_for_message, FormatVersion, Program, VersionInfo};

/// Highest UI major version this parser understands (0.1.0 and 1.x are known).
const MAX_UI_MAJOR: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UiError {
    /// The `version` line announces a UI format this parser does not know.
    #[error("unsupported Terraform JSON UI version {version} (supported: 0.1 and 1.x)")]
    UnsupportedVersion { version: String },
}

/// Envelope keys common to every JSON line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UiMeta {
    /// `@level`: `info`, `warn`, `error` (note `warn`, not `warning`).
    pub level: Option<String>,
    /// `@message`: human summary; may contain raw provider text.
    pub message: String,
    /// `@module`: `terraform.ui` or `tofu.ui`.
    pub module: Option<String>,
    /// `@timestamp` as written (RFC 3339 with local offset); absent in golden test files.
    pub timestamp: Option<String>,
}

/// One line of the UI stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UiMessage {
    Version {
        meta: UiMeta,
        version: VersionInfo,
    },
    Log {
        meta: UiMeta,
    },
    Diagnostic {
        meta: UiMeta,
        diagnostic: Diagnostic,
    },
    PlannedChange {
        meta: UiMeta,
        change: ResourceChangeEvent,
    },
    ResourceDrift {
        meta: UiMeta,
        change: ResourceChangeEvent,
    },
    ChangeSummary {
        meta: UiMeta,
        changes: ChangeSummary,
    },
    /// Output names with sensitivity (values are never parsed).
    Outputs {
        meta: UiMeta,
        outputs: BTreeMap<String, OutputInfo>,
    },
    ApplyStart {
        meta: UiMeta,
        hook: ApplyHook,
    },
    ApplyProgress {
        meta: UiMeta,
        hook: ApplyHook,
    },
    ApplyComplete {
        meta: UiMeta,
        hook: ApplyHook,
    },
    ApplyErrored {
        meta: UiMeta,
        hook: ApplyHook,
    },
    ProvisionStart {
        meta: UiMeta,
        hook: ProvisionHook,
    },
    ProvisionProgress {
        meta: UiMeta,
        hook: ProvisionHook,
    },
    ProvisionComplete {
        meta: UiMeta,
        hook: ProvisionHook,
    },
    ProvisionErrored {
        meta: UiMeta,
        hook: ProvisionHook,
    },
    RefreshStart {
        meta: UiMeta,
        hook: RefreshHook,
    },
    RefreshComplete {
        meta: UiMeta,
        hook: RefreshHook,
    },
    Ephemeral {
        meta: UiMeta,
        phase: EphemeralPhase,
        hook: EphemeralHook,
    },
    /// Any other type (`test_*`, `policy_*`, `action_*`, …) or a known type whose payload
    /// is missing or has an unexpected shape.
    Other {
        meta: UiMeta,
        type_: String,
    },
    /// A line that is not a JSON object (e.g. Terraform crash output).
    NonJson {
        line: String,
    },
}

impl UiMessage {
    /// Envelope of a JSON line; `None` for [`UiMessage::NonJson`].
    pub fn meta(&self) -> Option<&UiMeta> {
        use UiMessage::*;
        match self {
            Version { meta, .. }
            | Log { meta }
            | Diagnostic { meta, .. }
            | PlannedChange { meta, .. }
            | ResourceDrift { meta, .. }
            | ChangeSummary { meta, .. }
            | Outputs { meta, .. }
            | ApplyStart { meta, .. }
            | ApplyProgress { meta, .. }
            | ApplyComplete { meta, .. }
            | ApplyErrored { meta, .. }
            | ProvisionStart { meta, .. }
            | ProvisionProgress { meta, .. }
            | ProvisionComplete { meta, .. }
            | ProvisionErrored { meta, .. }
            | RefreshStart { meta, .. }
            | RefreshComplete { meta, .. }
            | Ephemeral { meta, .. }
            | Other { meta, .. } => Some(meta),
            NonJson { .. } => None,
        }
    }
}

/// A parsed stream: the version line (if any) and every message in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UiStream {
    pub version: Option<VersionInfo>,
    pub messages: Vec<UiMessage>,
}

impl UiStream {
    /// Every diagnostic in order, with the envelope (for `@timestamp`).
    pub fn diagnostics(&self) -> impl Iterator<Item = (&UiMeta, &Diagnostic)> {
        self.messages.iter().filter_map(|m| match m {
            UiMessage::Diagnostic { meta, diagnostic } => Some((meta, diagnostic)),
            _ => None,
        })
    }

    /// The last `change_summary` of the stream.
    pub fn change_summary(&self) -> Option<&ChangeSummary> {
        self.messages.iter().rev().find_map(|m| match m {
            UiMessage::ChangeSummary { changes, .. } => Some(changes),
            _ => None,
        })
    }

    /// Number of lines that were not JSON objects (crash output, stray prints).
    pub fn non_json_lines(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| matches!(m, UiMessage::NonJson { .. }))
            .count()
    }
}

/// Parses a whole stream. Blank lines are skipped; only an unsupported version fails.
pub fn parse_ui_stream(text: &str) -> Result<UiStream, UiError> {
    let mut stream = UiStream::default();
    for line in strip_bom(text).lines() {
        let Some(message) = parse_ui_line(line)? else {
            continue;
        };
        if let UiMessage::Version { version, .. } = &message {
            if stream.version.is_none() {
                stream.version = Some(version.clone());
            }
        }
        stream.messages.push(message);
    }
    Ok(stream)
}

/// Parses one line. `Ok(None)` for a blank line.
pub fn parse_ui_line(line: &str) -> Result<Option<UiMessage>, UiError> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let Ok(raw) = serde_json::from_str::<RawLine<'_>>(line) else {
        return Ok(Some(UiMessage::NonJson {
            line: line.to_string(),
        }));
    };
    raw.into_message().map(Some)
}

/// The envelope as written; payloads stay raw until the type is known.
#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "@level", default)]
    level: Option<String>,
    #[serde(rename = "@message", default)]
    message: Option<String>,
    #[serde(rename = "@module", default)]
    module: Option<String>,
    #[serde(rename = "@timestamp", default)]
    timestamp: Option<String>,
    #[serde(rename = "type", default)]
    type_: Option<String>,
    #[serde(borrow, default)]
    hook: Option<&'a RawValue>,
    #[serde(borrow, default)]
    change: Option<&'a RawValue>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    diagnostic: Option<&'a RawValue>,
    #[serde(borrow, default)]
    outputs: Option<&'a RawValue>,
    #[serde(default)]
    terraform: Option<String>,
    #[serde(default)]
    tofu: Option<String>,
    #[serde(default)]
    ui: Option<String>,
}

fn payload<T: DeserializeOwned>(raw: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(raw?.get()).ok()
}

impl RawLine<'_> {
    fn into_message(self) -> Result<UiMessage, UiError> {
        let meta = UiMeta {
            level: self.level,
            message: self.message.unwrap_or_default(),
            module: self.module,
            timestamp: self.timestamp,
        };
        let type_ = self.type_.unwrap_or_default();
        // A known type whose payload is missing or malformed degrades to `Other`.
        macro_rules! parsed {
            ($raw:expr) => {
                match payload($raw) {
                    Some(value) => value,
                    None => return Ok(UiMessage::Other { meta, type_ }),
                }
            };
        }
        let message = match type_.as_str() {
            "version" => {
                let version = version_info(
                    meta.module.as_deref(),
                    self.terraform,
                    self.tofu,
                    self.ui.as_deref(),
                )?;
                UiMessage::Version { meta, version }
            }
            "log" => UiMessage::Log { meta },
            "diagnostic" => UiMessage::Diagnostic {
                diagnostic: parsed!(self.diagnostic),
                meta,
            },
            "planned_change" => UiMessage::PlannedChange {
                change: parsed!(self.change),
                meta,
            },
            "resource_drift" => UiMessage::ResourceDrift {
                change: parsed!(self.change),
                meta,
            },
            "change_summary" => UiMessage::ChangeSummary {
                changes: parsed!(self.changes),
                meta,
            },
            "outputs" => UiMessage::Outputs {
                outputs: parsed!(self.outputs),
                meta,
            },
            _ => hook_message(type_, self.hook, meta),
        };
        Ok(message)
    }
}

/// The messages whose payload is a `hook` object (apply, provision, refresh, ephemeral); any
/// other type, or a missing or malformed hook, is `Other`.
fn hook_message(type_: String, hook: Option<&RawValue>, meta: UiMeta) -> UiMessage {
    macro_rules! parsed {
        ($raw:expr) => {
            match payload($raw) {
                Some(value) => value,
                None => return UiMessage::Other { meta, type_ },
            }
        };
    }
    match type_.as_str() {
        "apply_start" => UiMessage::ApplyStart {
            hook: parsed!(hook),
            meta,
        },
        "apply_progress" => UiMessage::ApplyProgress {
            hook: parsed!(hook),
            meta,
        },
        "apply_complete" => UiMessage::ApplyComplete {
            hook: parsed!(hook),
            meta,
        },
        "apply_errored" => UiMessage::ApplyErrored {
            hook: parsed!(hook),
            meta,
        },
        "provision_start" => UiMessage::ProvisionStart {
            hook: parsed!(hook),
            meta,
        },
        "provision_progress" => UiMessage::ProvisionProgress {
            hook: parsed!(hook),
            meta,
        },
        "provision_complete" => UiMessage::ProvisionComplete {
            hook: parsed!(hook),
            meta,
        },
        "provision_errored" => UiMessage::ProvisionErrored {
            hook: parsed!(hook),
            meta,
        },
        "refresh_start" => UiMessage::RefreshStart {
            hook: parsed!(hook),
            meta,
        },
        "refresh_complete" => UiMessage::RefreshComplete {
            hook: parsed!(hook),
            meta,
        },
        other => match ephemeral_phase(other) {
            Some(phase) => UiMessage::Ephemeral {
                hook: parsed!(hook),
                phase,
                meta,
            },
            None => UiMessage::Other { meta, type_ },
        },
    }
}

fn ephemeral_phase(type_: &str) -> Option<EphemeralPhase> {
    match type_ {
        "ephemeral_op_start" | "ephemeral_action_started" => Some(EphemeralPhase::Start),
        "ephemeral_op_progress" => Some(EphemeralPhase::Progress),
        "ephemeral_op_complete" | "ephemeral_action_complete" => Some(EphemeralPhase::Complete),
        "ephemeral_op_errored" => Some(EphemeralPhase::Errored),
        _ => None,
    }
}

fn version_info(
    module: Option<&str>,
    terraform: Option<String>,
    tofu: Option<String>,
    ui: Option<&str>,
) -> Result<VersionInfo, UiError> {
    let ui_text = ui.unwrap_or_default();
    let ui = FormatVersion::parse(ui_text)
        .filter(|v| v.major <= MAX_UI_MAJOR)
        .ok_or_else(|| UiError::UnsupportedVersion {
            version: clip_for_message(ui_text),
        })?;
    let is_tofu = tofu.is_some() || module == Some("tofu.ui");
    Ok(VersionInfo {
        program: if is_tofu {
            Program::OpenTofu
        } else {
            Program::Terraform
        },
        program_version: tofu.or(terraform).unwrap_or_default(),
        ui,
    })
}

#[cfg(test)]
#[path = "ui_stream_tests.rs"]
mod tests;
