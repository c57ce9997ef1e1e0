//! Batch interface: JSON lines in (`message`, optional `id`, `address`, `fresh_identifiers`,
//! `refers_to_fresh_resource`), JSON lines out (`id, category, aws_code, status_code,
//! iam_action, deny_kind`, null when absent).

use super::{classify, ClassifyContext};
use serde_json::{json, Map, Value};

/// A line that could not be classified. Texts never include the line's content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyJsonlError {
    #[error("line {line}: not valid JSON")]
    NotJson { line: usize },
    #[error("line {line}: not a JSON object")]
    NotAnObject { line: usize },
    #[error("line {line}: `message` is missing or not a string")]
    MissingMessage { line: usize },
    #[error("line {line}: `{field}` has the wrong type")]
    WrongType { line: usize, field: &'static str },
}

/// Classifies every non-blank line of `input` and returns one output line per input line.
///
/// Context per line: `address` absent → context-free default (an address is assumed);
/// `address` null or "" → no address; `fresh_identifiers` (array of strings) and
/// `refers_to_fresh_resource` (bool) fill the rest of [`ClassifyContext`].
pub fn classify_jsonl(input: &str) -> Result<String, ClassifyJsonlError> {
    let mut out = String::new();
    for (index, raw) in input.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(raw).map_err(|_| ClassifyJsonlError::NotJson { line })?;
        let record = value
            .as_object()
            .ok_or(ClassifyJsonlError::NotAnObject { line })?;
        let message = record
            .get("message")
            .and_then(Value::as_str)
            .ok_or(ClassifyJsonlError::MissingMessage { line })?;
        let ctx = context_of(record, line)?;
        let c = classify(message, &ctx);
        let row = json!({
            "id": record.get("id").cloned().unwrap_or(Value::Null),
            "category": c.category.id(),
            "aws_code": c.aws_code,
            "status_code": c.status_code,
            "iam_action": c.iam_action,
            "deny_kind": c.deny_kind.map(|k| k.id()),
        });
        out.push_str(&row.to_string());
        out.push('\n');
    }
    Ok(out)
}

fn context_of(
    record: &Map<String, Value>,
    line: usize,
) -> Result<ClassifyContext, ClassifyJsonlError> {
    let mut ctx = ClassifyContext::default();
    match record.get("address") {
        None => {}
        Some(Value::Null) => ctx.has_address = false,
        Some(Value::String(s)) => ctx.has_address = !s.trim().is_empty(),
        Some(_) => {
            return Err(ClassifyJsonlError::WrongType {
                line,
                field: "address",
            })
        }
    }
    match record.get("refers_to_fresh_resource") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => ctx.refers_to_fresh_resource = *b,
        Some(_) => {
            return Err(ClassifyJsonlError::WrongType {
                line,
                field: "refers_to_fresh_resource",
            })
        }
    }
    match record.get("fresh_identifiers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                let s = item.as_str().ok_or(ClassifyJsonlError::WrongType {
                    line,
                    field: "fresh_identifiers",
                })?;
                ctx.fresh_identifiers.push(s.to_string());
            }
        }
        Some(_) => {
            return Err(ClassifyJsonlError::WrongType {
                line,
                field: "fresh_identifiers",
            })
        }
    }
    Ok(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_line_and_keeps_ids() {
        let input = concat!(
            r#"{"id":"a","message":"Error: creating EC2 Instance: VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 32 allows"}"#,
            "\n\n",
            r#"{"id":7,"message":"operation error IAM: GetRole, https response error StatusCode: 403, RequestID: 11111111-2222-3333-4444-555555555555, api error AccessDenied: User: arn:aws:sts::123456789012:assumed-role/r/s is not authorized to perform: iam:GetRole on resource: role x with an explicit deny in a service control policy"}"#,
            "\n",
            r#"{"message":"Unsupported argument\nAn argument named \"foo\" is not expected here.","address":null}"#,
            "\n",
        );
        let out = classify_jsonl(input).unwrap();
        let rows: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0],
            json!({"id":"a","category":"quota_exceeded","aws_code":"VcpuLimitExceeded","status_code":null,"iam_action":null,"deny_kind":null})
        );
        assert_eq!(
            rows[1],
            json!({"id":7,"category":"permission_missing","aws_code":"AccessDenied","status_code":403,"iam_action":"iam:GetRole","deny_kind":"explicit_scp"})
        );
        assert_eq!(rows[2]["id"], Value::Null);
        assert_eq!(rows[2]["category"], "configuration_error");
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        let ok = r#"{"message":"x"}"#;
        assert_eq!(
            classify_jsonl(&format!("{ok}\n{{not json")),
            Err(ClassifyJsonlError::NotJson { line: 2 })
        );
        assert_eq!(
            classify_jsonl("[1]"),
            Err(ClassifyJsonlError::NotAnObject { line: 1 })
        );
        assert_eq!(
            classify_jsonl(&format!("{ok}\n\n{{\"id\":1}}")),
            Err(ClassifyJsonlError::MissingMessage { line: 3 })
        );
        assert_eq!(
            classify_jsonl(r#"{"message":"x","fresh_identifiers":[1]}"#),
            Err(ClassifyJsonlError::WrongType {
                line: 1,
                field: "fresh_identifiers"
            })
        );
        assert_eq!(
            ClassifyJsonlError::NotJson { line: 4 }.to_string(),
            "line 4: not valid JSON"
        );
    }

    #[test]
    fn context_fields_reach_the_classifier() {
        let msg = "Error: creating EC2 Instance: InvalidGroup.NotFound: The security group 'sg-0abc1234' does not exist in VPC 'vpc-1'";
        let plain = classify_jsonl(&json!({"message": msg}).to_string()).unwrap();
        assert!(plain.contains("\"not_found\""), "{plain}");
        let fresh = classify_jsonl(
            &json!({"message": msg, "fresh_identifiers": ["sg-0abc1234"]}).to_string(),
        )
        .unwrap();
        assert!(fresh.contains("\"propagation_delay\""), "{fresh}");
    }
}
