//! From a changed attribute path (as in `before`/`after`) to the expression that sets it.

use std::collections::BTreeMap;

use crate::terraform::plan_expression::ExpressionNode;
use crate::terraform::PathStep;

use super::closure::{expression_refs, node_refs};

/// The expression behind one changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PathExpression {
    /// Configuration path: attribute and block names only (`vpc_config.public_access_cidrs`).
    pub label: String,
    /// Most specific references under the expression (the union over a whole block when
    /// positions cannot be trusted).
    pub references: Vec<String>,
    /// Whether the top-level attribute has an expression at all (else: computed/default,
    /// or a `dynamic` block plan JSON does not show).
    pub found: bool,
}

enum Position<'n> {
    Node(&'n ExpressionNode),
    Block(&'n BTreeMap<String, ExpressionNode>),
}

/// Descends block maps by key. A list of blocks is descended only when it has exactly one
/// block (positions in `after` need not match the configuration for sets and `dynamic`
/// blocks); otherwise the union of references under it is taken.
pub(super) fn expression_for_path(
    expressions: &BTreeMap<String, ExpressionNode>,
    path: &[PathStep],
) -> PathExpression {
    let top = match path.first() {
        Some(PathStep::Key(top)) => top,
        _ => {
            return PathExpression {
                label: String::new(),
                references: Vec::new(),
                found: false,
            }
        }
    };
    let mut label = vec![top.as_str()];
    let Some(node) = expressions.get(top) else {
        return PathExpression {
            label: top.clone(),
            references: Vec::new(),
            found: false,
        };
    };
    let mut position = Position::Node(node);
    let mut rest = &path[1..];
    let references = loop {
        match position {
            Position::Node(ExpressionNode::Expression(e)) => break expression_refs(e),
            Position::Node(ExpressionNode::Block(map)) => position = Position::Block(map),
            Position::Node(node @ ExpressionNode::Blocks(list)) => match (list.as_slice(), rest) {
                ([only], [PathStep::Index(_), tail @ ..]) => {
                    position = Position::Block(only);
                    rest = tail;
                }
                _ => break node_refs(node),
            },
            Position::Block(map) => match rest {
                [PathStep::Key(key), tail @ ..] if map.contains_key(key) => {
                    label.push(key);
                    position = Position::Node(&map[key]);
                    rest = tail;
                }
                [PathStep::Index(_), tail @ ..] => rest = tail,
                _ => {
                    let all: Vec<&str> = map.values().flat_map(|n| n.all_references()).collect();
                    break super::reference::most_specific(&all)
                        .into_iter()
                        .map(String::from)
                        .collect();
                }
            },
        }
    };
    PathExpression {
        label: label.join("."),
        references,
        found: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn exprs() -> BTreeMap<String, ExpressionNode> {
        let raw = RawValue::from_string(
            r#"{
              "name": {"references": ["var.prefix", "var.env"]},
              "vpc_config": [{"public_access_cidrs": {"references": ["var.admin_cidrs"]},
                              "subnet_ids": {"references": ["aws_subnet.a.id", "aws_subnet.a"]}}],
              "ingress": [{"cidr_blocks": {"references": ["var.a"]}},
                          {"cidr_blocks": {"references": ["var.b"]}}],
              "assume_role": {"role_arn": {"references": ["var.role"]}},
              "tags": {"constant_value": {"Name": "x"}}
            }"#
            .to_string(),
        )
        .unwrap();
        crate::terraform::plan_expression::parse_expressions(Some(&raw))
    }

    fn path(steps: &[&str]) -> Vec<PathStep> {
        steps
            .iter()
            .map(|s| match s.parse::<u64>() {
                Ok(i) => PathStep::Index(i),
                Err(_) => PathStep::Key(s.to_string()),
            })
            .collect()
    }

    #[test]
    fn finds_expressions_for_paths() {
        let e = exprs();
        let cases: Vec<(&[&str], &str, &[&str], bool)> = vec![
            (&["name"], "name", &["var.env", "var.prefix"], true),
            (
                &["vpc_config", "0", "public_access_cidrs", "1"],
                "vpc_config.public_access_cidrs",
                &["var.admin_cidrs"],
                true,
            ),
            (
                &["vpc_config", "0", "subnet_ids", "0"],
                "vpc_config.subnet_ids",
                &["aws_subnet.a.id"],
                true,
            ),
            // several blocks: positions are not trusted
            (
                &["ingress", "1", "cidr_blocks", "0"],
                "ingress",
                &["var.a", "var.b"],
                true,
            ),
            (
                &["assume_role", "role_arn"],
                "assume_role.role_arn",
                &["var.role"],
                true,
            ),
            // a key the block does not set: union of the block
            (
                &["assume_role", "session_name"],
                "assume_role",
                &["var.role"],
                true,
            ),
            (&["tags", "Name"], "tags", &[], true),
            (&["arn"], "arn", &[], false),
            (&[], "", &[], false),
        ];
        for (p, label, refs, found) in cases {
            let got = expression_for_path(&e, &path(p));
            assert_eq!(got.label, label, "{p:?}");
            assert_eq!(got.references, refs, "{p:?}");
            assert_eq!(got.found, found, "{p:?}");
        }
    }
}
