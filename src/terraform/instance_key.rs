//! Resource instance keys: `count` index or `for_each` key.

use serde::{Deserialize, Serialize};

/// `resource_key` of a UI hook resource, `index` of a plan resource change.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InstanceKey {
    Int(i64),
    Str(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_int_string_and_null() {
        let keys: Vec<Option<InstanceKey>> =
            serde_json::from_str(r#"[0, "file1.txt", null, 12]"#).unwrap();
        assert_eq!(
            keys,
            vec![
                Some(InstanceKey::Int(0)),
                Some(InstanceKey::Str("file1.txt".into())),
                None,
                Some(InstanceKey::Int(12)),
            ]
        );
    }
}
