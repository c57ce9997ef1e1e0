//! One action per resource instance, from plan `actions` arrays or UI `action` strings.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Create,
    Update,
    Delete,
    /// `["delete","create"]` or `["create","delete"]` (create_before_destroy).
    Replace,
    /// `["create","forget"]` (TF 1.7+): a new object is created, the old one only leaves state.
    CreateThenForget,
    Read,
    NoOp,
    /// `["forget"]`: removed from state without destroying (UI string `remove`).
    Forget,
    /// Only the address changes (`moved` block); UI string `move`.
    Move,
    /// Only imported; UI string `import`.
    Import,
}

impl Action {
    /// From a plan JSON `change.actions` array; `None` for an unknown combination.
    pub fn from_plan_actions<S: AsRef<str>>(actions: &[S]) -> Option<Action> {
        let actions: Vec<&str> = actions.iter().map(AsRef::as_ref).collect();
        Some(match actions.as_slice() {
            ["no-op"] => Action::NoOp,
            ["create"] => Action::Create,
            ["read"] => Action::Read,
            ["update"] => Action::Update,
            ["delete"] => Action::Delete,
            ["delete", "create"] | ["create", "delete"] => Action::Replace,
            ["forget"] => Action::Forget,
            ["create", "forget"] => Action::CreateThenForget,
            _ => return None,
        })
    }

    /// From a UI stream `action` string (`planned_change`, `apply_*` hooks).
    pub fn from_ui(action: &str) -> Option<Action> {
        Some(match action {
            "noop" => Action::NoOp,
            "create" => Action::Create,
            "read" => Action::Read,
            "update" => Action::Update,
            "replace" => Action::Replace,
            "delete" => Action::Delete,
            "move" => Action::Move,
            "import" => Action::Import,
            "remove" | "forget" => Action::Forget,
            _ => return None,
        })
    }

    /// Lower-case name used in comments and snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::Replace => "replace",
            Action::CreateThenForget => "create_then_forget",
            Action::Read => "read",
            Action::NoOp => "no_op",
            Action::Forget => "forget",
            Action::Move => "move",
            Action::Import => "import",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_every_plan_action_array() {
        let cases: &[(&[&str], Option<Action>)] = &[
            (&["no-op"], Some(Action::NoOp)),
            (&["create"], Some(Action::Create)),
            (&["read"], Some(Action::Read)),
            (&["update"], Some(Action::Update)),
            (&["delete"], Some(Action::Delete)),
            (&["delete", "create"], Some(Action::Replace)),
            (&["create", "delete"], Some(Action::Replace)),
            (&["forget"], Some(Action::Forget)),
            (&["create", "forget"], Some(Action::CreateThenForget)),
            (&[], None),
            (&["noop"], None),
            (&["create", "create"], None),
        ];
        for (actions, want) in cases {
            assert_eq!(Action::from_plan_actions(actions), *want, "{actions:?}");
        }
    }

    #[test]
    fn maps_every_ui_action_string() {
        let cases = [
            ("noop", Some(Action::NoOp)),
            ("create", Some(Action::Create)),
            ("read", Some(Action::Read)),
            ("update", Some(Action::Update)),
            ("replace", Some(Action::Replace)),
            ("delete", Some(Action::Delete)),
            ("move", Some(Action::Move)),
            ("import", Some(Action::Import)),
            ("remove", Some(Action::Forget)),
            ("open", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(Action::from_ui(text), want, "{text:?}");
        }
    }

    #[test]
    fn displays_snake_case() {
        assert_eq!(Action::NoOp.to_string(), "no_op");
        assert_eq!(
            serde_json::to_string(&Action::CreateThenForget).unwrap(),
            "\"create_then_forget\""
        );
    }
}
