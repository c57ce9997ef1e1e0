//! Deep diff of a change's `before`/`after`, with unknown and sensitive marks.
//!
//! Rules: `null`, absent and an empty container on the other side of `null` all mean "no
//! value". Objects and lists are descended (lists by position); any other pair is a leaf.
//! A path marked `true` in `after_unknown` is reported once, unknown, without descending.
//! A path marked `true` in `before_sensitive`/`after_sensitive` (or under such a parent) is
//! reported once, without descending and **without values**.

use serde::Serialize;
use serde_json::Value;

use crate::terraform::attribute_path::PathStep;
use crate::terraform::plan_json::Change;

/// One changed leaf (or one sensitive / unknown subtree).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeChange {
    pub path: Vec<PathStep>,
    /// `None` when there was no value, or when `sensitive`.
    pub before: Option<Value>,
    /// `None` when there is no value, when unknown, or when `sensitive`.
    pub after: Option<Value>,
    /// Known only after apply.
    pub after_unknown: bool,
    /// Marked sensitive before or after: values are never kept.
    pub sensitive: bool,
}

/// Changed attributes of one change (parses its raw values; nothing is kept afterwards).
pub fn attribute_changes(change: &Change<'_>) -> Vec<AttributeChange> {
    let before = change.before_value();
    let after = change.after_value();
    let unknown = change.after_unknown_value();
    let before_sensitive = change.before_sensitive_value();
    let after_sensitive = change.after_sensitive_value();
    let mut differ = Differ {
        path: Vec::new(),
        out: Vec::new(),
    };
    differ.walk(Marks {
        before: before.as_ref(),
        after: after.as_ref(),
        unknown: unknown.as_ref(),
        before_sensitive: before_sensitive.as_ref(),
        after_sensitive: after_sensitive.as_ref(),
    });
    differ.out
}

/// The five trees at one path.
#[derive(Clone, Copy)]
struct Marks<'v> {
    before: Option<&'v Value>,
    after: Option<&'v Value>,
    unknown: Option<&'v Value>,
    before_sensitive: Option<&'v Value>,
    after_sensitive: Option<&'v Value>,
}

impl<'v> Marks<'v> {
    fn child(&self, step: &PathStep) -> Marks<'v> {
        Marks {
            before: child(self.before, step),
            after: child(self.after, step),
            unknown: child(self.unknown, step),
            before_sensitive: child(self.before_sensitive, step),
            after_sensitive: child(self.after_sensitive, step),
        }
    }
}

fn child<'v>(value: Option<&'v Value>, step: &PathStep) -> Option<&'v Value> {
    match (value?, step) {
        (Value::Object(map), PathStep::Key(key)) => map.get(key),
        (Value::Array(items), PathStep::Index(i)) => items.get(usize::try_from(*i).ok()?),
        _ => None,
    }
}

fn is_true(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(true)))
}

/// `null` → no value.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Equal as far as a reader is concerned: no value ≈ null ≈ empty container.
fn same(before: Option<&Value>, after: Option<&Value>) -> bool {
    match (before, after) {
        (None, None) => true,
        (Some(v), None) | (None, Some(v)) => is_empty_container(v),
        (Some(b), Some(a)) => b == a,
    }
}

struct Differ {
    path: Vec<PathStep>,
    out: Vec<AttributeChange>,
}

impl Differ {
    fn walk(&mut self, marks: Marks<'_>) {
        let before = present(marks.before);
        let after = present(marks.after);
        let unknown = is_true(marks.unknown);
        if is_true(marks.before_sensitive) || is_true(marks.after_sensitive) {
            if unknown || !same(before, after) {
                self.emit(None, None, unknown, true);
            }
            return;
        }
        if unknown {
            self.emit(before.cloned(), None, true, false);
            return;
        }
        let emitted_before = self.out.len();
        match (before, after, marks.unknown) {
            (b, a, u) if is_object_or_none(b) && is_object_or_none(a) && any_object(b, a, u) => {
                let mut keys: Vec<&String> = [b, a, u]
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_object)
                    .flat_map(|m| m.keys())
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                for key in keys {
                    self.descend(marks, PathStep::Key(key.clone()));
                }
            }
            (b, a, u) if is_array_or_none(b) && is_array_or_none(a) && any_array(b, a, u) => {
                let len = [b, a, u]
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_array)
                    .map(Vec::len)
                    .max()
                    .unwrap_or(0);
                for i in 0..len {
                    self.descend(marks, PathStep::Index(i as u64));
                }
            }
            _ => {}
        }
        if self.out.len() == emitted_before && !same(before, after) {
            self.emit(before.cloned(), after.cloned(), false, false);
        }
    }

    fn descend(&mut self, marks: Marks<'_>, step: PathStep) {
        let next = marks.child(&step);
        self.path.push(step);
        self.walk(next);
        self.path.pop();
    }

    fn emit(
        &mut self,
        before: Option<Value>,
        after: Option<Value>,
        unknown: bool,
        sensitive: bool,
    ) {
        self.out.push(AttributeChange {
            path: self.path.clone(),
            before,
            after,
            after_unknown: unknown,
            sensitive,
        });
    }
}

fn is_object_or_none(v: Option<&Value>) -> bool {
    v.map_or(true, Value::is_object)
}

fn is_array_or_none(v: Option<&Value>) -> bool {
    v.map_or(true, Value::is_array)
}

fn any_object(b: Option<&Value>, a: Option<&Value>, u: Option<&Value>) -> bool {
    [b, a, u].into_iter().flatten().any(Value::is_object)
}

fn any_array(b: Option<&Value>, a: Option<&Value>, u: Option<&Value>) -> bool {
    [b, a, u].into_iter().flatten().any(Value::is_array)
}

#[cfg(test)]
#[path = "attribute_diff_tests.rs"]
mod tests;
