//! The `fake_thing` resource.

use std::borrow::Cow;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tf_provider::schema::{
    Attribute, AttributeConstraint, AttributeType, Block, Description, Schema,
};
use tf_provider::value::{Value, ValueEmpty, ValueNumber, ValueString};
use tf_provider::{map, AttributePath, Diagnostic, Diagnostics, Resource};

/// At most this many bytes of a probed file are kept in `read_content`.
const READ_CONTENT_CAP: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ThingState<'a> {
    pub id: ValueString<'a>,
    pub name: ValueString<'a>,
    pub fail_with: ValueString<'a>,
    pub plan_fail_with: ValueString<'a>,
    pub fail_on: ValueString<'a>,
    pub read_file: ValueString<'a>,
    pub read_result: ValueString<'a>,
    pub read_content: ValueString<'a>,
    pub depends_value: ValueString<'a>,
    /// A file standing for the remote object: `remote_value` is read from it at create and
    /// at every refresh, so editing the file is a change made outside Terraform.
    #[serde(default)]
    pub remote_file: ValueString<'a>,
    #[serde(default)]
    pub remote_value: ValueString<'a>,
    /// Planning (create/update) sleeps this many milliseconds before answering: a plan that
    /// waits on "the API" without using CPU. Null/absent: no delay.
    #[serde(default)]
    pub plan_delay_ms: ValueNumber,
}

impl ThingState<'_> {
    /// True when a practitioner-settable attribute differs.
    fn config_differs(&self, other: &Self) -> bool {
        self.name != other.name
            || self.fail_with != other.fail_with
            || self.plan_fail_with != other.plan_fail_with
            || self.fail_on != other.fail_on
            || self.read_file != other.read_file
            || self.depends_value != other.depends_value
            || self.remote_file != other.remote_file
            || self.plan_delay_ms != other.plan_delay_ms
    }

    /// How long planning waits before answering (`plan_delay_ms`, 0 when unset or negative).
    fn plan_delay(&self) -> std::time::Duration {
        match self.plan_delay_ms {
            Value::Value(ms) if ms > 0 => std::time::Duration::from_millis(ms as u64),
            _ => std::time::Duration::ZERO,
        }
    }

    /// `remote_value` as the remote object has it now (the file's trimmed text); `None` when
    /// there is no remote file or it cannot be read.
    fn remote_now(&self) -> Option<String> {
        let path = known(&self.remote_file)?;
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_string())
    }

    /// Mark the probe results as "known after apply" (or null when nothing is probed).
    fn plan_probe(&mut self) {
        let planned = if self.read_file.is_null() {
            Value::Null
        } else {
            Value::Unknown
        };
        self.read_result = planned.clone();
        self.read_content = planned;
        self.remote_value = if self.remote_file.is_null() {
            Value::Null
        } else {
            Value::Unknown
        };
    }

    /// Probe `read_file` now (at apply) and record what happened.
    fn apply_probe(&mut self) {
        match known(&self.read_file) {
            None => {
                self.read_result = Value::Null;
                self.read_content = Value::Null;
            }
            Some(path) => {
                let (result, content) = probe_file(path);
                self.read_result = Value::Value(result.into());
                self.read_content = content.map(Cow::Owned).map_or(Value::Null, Value::Value);
            }
        }
        self.remote_value = self
            .remote_now()
            .map_or(Value::Null, |v| Value::Value(Cow::Owned(v)));
    }

    /// The error text to fail `op` with, if this resource is configured to fail it.
    fn failure_for(&self, op: Op) -> Option<String> {
        let text = known(&self.fail_with)?;
        let applies = match known(&self.fail_on) {
            None => true,
            Some(on) => on == op.name(),
        };
        applies.then(|| text.to_string())
    }
}

#[derive(Clone, Copy)]
enum Op {
    Create,
    Update,
    Delete,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Update => "update",
            Op::Delete => "delete",
        }
    }
}

fn known<'s>(value: &'s ValueString<'_>) -> Option<&'s str> {
    match value {
        Value::Value(s) => Some(s.as_ref()),
        Value::Null | Value::Unknown => None,
    }
}

/// An ERROR diagnostic whose summary is exactly `text`, with an empty detail and no
/// attribute path: the shape the AWS provider's SDKv2 resources produce. Built directly
/// (not through `Diagnostic::new`) so `RUST_BACKTRACE` never appends a backtrace.
fn exact_error(text: String) -> Diagnostic {
    Diagnostic {
        summary: Cow::Owned(text),
        detail: Cow::Borrowed(""),
        attribute: AttributePath::default(),
    }
}

/// `("readable", Some(content))` or `("unreadable: <ErrorKind>", None)`.
/// NUL bytes (as in `/proc/*/environ`) become newlines in the content.
fn probe_file(path: &str) -> (String, Option<String>) {
    match std::fs::read(path) {
        Ok(mut bytes) => {
            bytes.truncate(READ_CONTENT_CAP);
            let text = String::from_utf8_lossy(&bytes).replace('\0', "\n");
            ("readable".to_string(), Some(text))
        }
        Err(err) => (format!("unreadable: {:?}", err.kind()), None),
    }
}

fn string_attr(description: &str, constraint: AttributeConstraint) -> Attribute {
    Attribute {
        attr_type: AttributeType::String,
        description: Description::plain(description),
        constraint,
        ..Default::default()
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct ThingResource;

#[async_trait]
impl Resource for ThingResource {
    type State<'a> = ThingState<'a>;
    type PrivateState<'a> = ValueEmpty;
    type ProviderMetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        use AttributeConstraint::{Computed, Optional, Required};
        Some(Schema {
            version: 1,
            block: Block {
                version: 1,
                description: Description::plain("A thing that exists only in Terraform state"),
                attributes: map! {
                    "id" => string_attr("fake-<name>", Computed),
                    "name" => string_attr("Name of the thing", Required),
                    "fail_with" => string_attr("Fail create/update/delete with exactly this error summary", Optional),
                    "plan_fail_with" => string_attr("Fail planning with exactly this error summary", Optional),
                    "fail_on" => string_attr("Only fail this operation: create, update or delete (default: all)", Optional),
                    "read_file" => string_attr("Path the provider tries to read at apply", Optional),
                    "read_result" => string_attr("readable, or unreadable: <io error kind>", Computed),
                    "read_content" => string_attr("Content of read_file (first 64 KiB, NUL as newline)", Computed),
                    "depends_value" => string_attr("Free value, to build references between resources", Optional),
                    "remote_file" => string_attr("A file standing for the remote object, read at create and refresh", Optional),
                    "remote_value" => string_attr("remote_file's trimmed text as last read", Computed),
                    "plan_delay_ms" => Attribute {
                        attr_type: AttributeType::Number,
                        description: Description::plain("Planning sleeps this many milliseconds (a plan waiting on an API without using CPU)"),
                        constraint: Optional,
                        ..Default::default()
                    },
                },
                ..Default::default()
            },
        })
    }

    async fn validate<'a>(&self, diags: &mut Diagnostics, config: Self::State<'a>) -> Option<()> {
        if let Some(on) = known(&config.fail_on) {
            if !matches!(on, "create" | "update" | "delete") {
                diags.add_error(Diagnostic {
                    summary: Cow::Borrowed("fail_on must be one of create, update, delete"),
                    detail: Cow::Owned(format!("got {on:?}")),
                    attribute: AttributePath::new("fail_on"),
                });
                return None;
            }
        }
        Some(())
    }

    async fn read<'a>(
        &self,
        _diags: &mut Diagnostics,
        state: Self::State<'a>,
        private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        let mut state = state;
        if let Some(now) = state.remote_now() {
            state.remote_value = Value::Value(Cow::Owned(now));
        }
        Some((state, private_state))
    }

    async fn plan_create<'a>(
        &self,
        diags: &mut Diagnostics,
        proposed_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        tokio::time::sleep(proposed_state.plan_delay()).await;
        if let Some(text) = known(&proposed_state.plan_fail_with) {
            diags.add_error(exact_error(text.to_string()));
            return None;
        }
        let mut state = proposed_state;
        state.id = Value::Unknown;
        state.plan_probe();
        Some((state, ValueEmpty::default()))
    }

    async fn plan_update<'a>(
        &self,
        diags: &mut Diagnostics,
        prior_state: Self::State<'a>,
        proposed_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        prior_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>, Vec<AttributePath>)> {
        tokio::time::sleep(proposed_state.plan_delay()).await;
        if let Some(text) = known(&proposed_state.plan_fail_with) {
            diags.add_error(exact_error(text.to_string()));
            return None;
        }
        let mut state = proposed_state;
        if state.config_differs(&prior_state) {
            state.id = prior_state.id.clone();
            state.plan_probe();
        }
        Some((state, prior_private_state, Vec::new()))
    }

    async fn plan_destroy<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        prior_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<Self::PrivateState<'a>> {
        Some(prior_private_state)
    }

    async fn create<'a>(
        &self,
        diags: &mut Diagnostics,
        planned_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        _planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        if let Some(text) = planned_state.failure_for(Op::Create) {
            diags.add_error(exact_error(text));
            return None;
        }
        let mut state = planned_state;
        let name = known(&state.name).unwrap_or_default().to_string();
        state.id = Value::Value(Cow::Owned(format!("fake-{name}")));
        state.apply_probe();
        Some((state, ValueEmpty::default()))
    }

    async fn update<'a>(
        &self,
        diags: &mut Diagnostics,
        _prior_state: Self::State<'a>,
        planned_state: Self::State<'a>,
        _config_state: Self::State<'a>,
        planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<(Self::State<'a>, Self::PrivateState<'a>)> {
        if let Some(text) = planned_state.failure_for(Op::Update) {
            diags.add_error(exact_error(text));
            return None;
        }
        let mut state = planned_state;
        if state.read_result.is_unknown()
            || state.read_content.is_unknown()
            || state.remote_value.is_unknown()
        {
            state.apply_probe();
        }
        Some((state, planned_private_state))
    }

    async fn destroy<'a>(
        &self,
        diags: &mut Diagnostics,
        prior_state: Self::State<'a>,
        _planned_private_state: Self::PrivateState<'a>,
        _provider_meta_state: Self::ProviderMetaState<'a>,
    ) -> Option<()> {
        if let Some(text) = prior_state.failure_for(Op::Delete) {
            diags.add_error(exact_error(text));
            return None;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thing(fail_with: Option<&str>, fail_on: Option<&str>) -> ThingState<'static> {
        let value =
            |v: Option<&str>| v.map_or(Value::Null, |s| Value::Value(Cow::Owned(s.to_string())));
        ThingState {
            name: value(Some("x")),
            fail_with: value(fail_with),
            fail_on: value(fail_on),
            ..Default::default()
        }
    }

    #[test]
    fn failure_for_table() {
        // (fail_with, fail_on, op, expected)
        type Case = (
            Option<&'static str>,
            Option<&'static str>,
            Op,
            Option<&'static str>,
        );
        let table: &[Case] = &[
            (None, None, Op::Create, None),
            (None, Some("create"), Op::Create, None),
            (Some("boom"), None, Op::Create, Some("boom")),
            (Some("boom"), None, Op::Update, Some("boom")),
            (Some("boom"), None, Op::Delete, Some("boom")),
            (Some("boom"), Some("create"), Op::Create, Some("boom")),
            (Some("boom"), Some("create"), Op::Update, None),
            (Some("boom"), Some("create"), Op::Delete, None),
            (Some("boom"), Some("update"), Op::Update, Some("boom")),
            (Some("boom"), Some("delete"), Op::Delete, Some("boom")),
            (Some("boom"), Some("delete"), Op::Create, None),
        ];
        for &(fail_with, fail_on, op, expected) in table {
            assert_eq!(
                thing(fail_with, fail_on).failure_for(op).as_deref(),
                expected,
                "{fail_with:?} {fail_on:?} {}",
                op.name()
            );
        }
    }

    #[test]
    fn exact_error_keeps_text_and_has_no_detail_even_with_backtraces_on() {
        std::env::set_var("RUST_BACKTRACE", "1");
        let text = "AccessDenied: not authorized\n\tstatus code: 403, request id: x";
        let diag = exact_error(text.to_string());
        assert_eq!(diag.summary, text);
        assert_eq!(diag.detail, "");
        assert_eq!(diag.attribute, AttributePath::default());
    }

    #[test]
    fn probe_reports_error_kind_or_content() {
        let dir = std::env::temp_dir().join(format!("fake-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, b"a\0b").unwrap();
        assert_eq!(
            probe_file(file.to_str().unwrap()),
            ("readable".to_string(), Some("a\nb".to_string()))
        );
        assert_eq!(
            probe_file(dir.join("missing").to_str().unwrap()),
            ("unreadable: NotFound".to_string(), None)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plan_delay_is_zero_unless_positive() {
        let mut t = thing(None, None);
        assert_eq!(t.plan_delay(), std::time::Duration::ZERO);
        t.plan_delay_ms = Value::Value(-5);
        assert_eq!(t.plan_delay(), std::time::Duration::ZERO);
        t.plan_delay_ms = Value::Value(1500);
        assert_eq!(t.plan_delay(), std::time::Duration::from_millis(1500));
    }

    #[test]
    fn plan_probe_is_null_without_read_file_and_unknown_with_it() {
        let mut without = thing(None, None);
        without.plan_probe();
        assert!(without.read_result.is_null() && without.read_content.is_null());
        let mut with = thing(None, None);
        with.read_file = Value::Value(Cow::Borrowed("/etc/hostname"));
        with.plan_probe();
        assert!(with.read_result.is_unknown() && with.read_content.is_unknown());
    }
}
