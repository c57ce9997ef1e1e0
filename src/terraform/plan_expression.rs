//! Terraform's JSON expression representation: `{"constant_value": …}` or
//! `{"references": [...]}`, nested blocks as maps / lists of maps.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// One expression. Both fields may be empty (e.g. a function call of constants is
/// neither constant-folded nor referencing).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Expression {
    pub constant_value: Option<Value>,
    /// Referenced names, expanded hierarchically (`aws_s3_bucket.b.arn`, `aws_s3_bucket.b`).
    pub references: Vec<String>,
}

/// An argument (expression) or a nested block (one, or several for repeated blocks).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ExpressionNode {
    Expression(Expression),
    Block(BTreeMap<String, ExpressionNode>),
    Blocks(Vec<BTreeMap<String, ExpressionNode>>),
}

impl ExpressionNode {
    /// Every reference in this node and below (for blocks whose positions do not align
    /// with the planned value: sets, `dynamic`).
    pub fn all_references(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_references(&mut out);
        out
    }

    fn collect_references<'n>(&'n self, out: &mut Vec<&'n str>) {
        match self {
            ExpressionNode::Expression(e) => out.extend(e.references.iter().map(String::as_str)),
            ExpressionNode::Block(map) => map.values().for_each(|n| n.collect_references(out)),
            ExpressionNode::Blocks(list) => list
                .iter()
                .flat_map(|m| m.values())
                .for_each(|n| n.collect_references(out)),
        }
    }
}

pub(crate) fn parse_expressions(raw: Option<&RawValue>) -> BTreeMap<String, ExpressionNode> {
    match raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()) {
        Some(Value::Object(map)) => block_from_map(map),
        _ => BTreeMap::new(),
    }
}

pub(crate) fn parse_expression(raw: Option<&RawValue>) -> Option<Expression> {
    match serde_json::from_str::<Value>(raw?.get()).ok()? {
        Value::Object(map) => Some(expression_from_map(map)),
        _ => None,
    }
}

fn is_expression(map: &Map<String, Value>) -> bool {
    map.is_empty()
        || map.contains_key("constant_value")
        || matches!(map.get("references"), Some(Value::Array(_)))
}

fn expression_from_map(mut map: Map<String, Value>) -> Expression {
    let references = match map.remove("references") {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Expression {
        constant_value: map.remove("constant_value"),
        references,
    }
}

fn block_from_map(map: Map<String, Value>) -> BTreeMap<String, ExpressionNode> {
    map.into_iter()
        .filter_map(|(key, value)| node_from_value(value).map(|node| (key, node)))
        .collect()
}

fn node_from_value(value: Value) -> Option<ExpressionNode> {
    match value {
        Value::Object(map) if is_expression(&map) => {
            Some(ExpressionNode::Expression(expression_from_map(map)))
        }
        Value::Object(map) => Some(ExpressionNode::Block(block_from_map(map))),
        Value::Array(items) => Some(ExpressionNode::Blocks(
            items
                .into_iter()
                .filter_map(|item| match item {
                    Value::Object(map) => Some(block_from_map(map)),
                    _ => None,
                })
                .collect(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn parses_constants_references_and_blocks() {
        let r = raw(r#"{"name":{"references":["var.aws_account_id"]},
                "bucket":{"constant_value":"b"},
                "lifecycle_rule":[{"enabled":{"constant_value":true},
                                   "expiration":[{"days":{"references":["var.days","local.x"]}}]}],
                "assume_role":{"role_arn":{"references":["var.role"]}},
                "empty":{}}"#);
        let exprs = parse_expressions(Some(&r));
        let ExpressionNode::Expression(name) = &exprs["name"] else {
            panic!("name should be an expression")
        };
        assert_eq!(name.references, vec!["var.aws_account_id"]);
        let ExpressionNode::Expression(bucket) = &exprs["bucket"] else {
            panic!("bucket should be an expression")
        };
        assert_eq!(bucket.constant_value, Some(Value::from("b")));
        assert_eq!(
            exprs["lifecycle_rule"].all_references(),
            vec!["var.days", "local.x"]
        );
        assert!(matches!(exprs["assume_role"], ExpressionNode::Block(_)));
        assert_eq!(exprs["assume_role"].all_references(), vec!["var.role"]);
        assert_eq!(
            exprs["empty"],
            ExpressionNode::Expression(Expression::default())
        );
    }

    #[test]
    fn absent_or_odd_input_gives_nothing() {
        assert!(parse_expressions(None).is_empty());
        assert!(parse_expressions(Some(&raw("[1]"))).is_empty());
        assert_eq!(parse_expression(Some(&raw("3"))), None);
        let e = parse_expression(Some(&raw(r#"{"references":["var.file_names"]}"#))).unwrap();
        assert_eq!(e.references, vec!["var.file_names"]);
    }
}
