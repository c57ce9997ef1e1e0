//! One entry of an expression's `references` (`var.x`, `module.m.out`, `aws_s3_bucket.b.arn`,
//! `each.value` …), classified for the attribution walk.

use crate::terraform::resource_address::{split_segments, strip_key};

/// What a reference names. Instance keys (`[0]`, `["k"]`) are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `var.X…` → variable `X`.
    Var(String),
    /// `local.X…`.
    Local(String),
    /// `module.M.O…` (`output` `None` for the whole module object).
    ModuleOutput {
        call: String,
        output: Option<String>,
    },
    /// `T.N.attr…`, `data.T.N.attr…`: module-relative block address, first attribute.
    Resource {
        address: String,
        attribute: Option<String>,
    },
    /// `each.key` / `each.value`.
    Each,
    /// `count.index`.
    CountIndex,
    /// `path.*`, `terraform.workspace`, `self.*`: not inputs.
    Context,
    /// Anything else (not expected in plan JSON).
    Unknown,
}

pub fn parse_reference(text: &str) -> Reference {
    let segments = split_segments(text).segments;
    let name = |i: usize| segments.get(i).map(|s| strip_key(s).to_string());
    let first = segments.first().map(|s| strip_key(s)).unwrap_or("");
    let valid = |s: &Option<String>| s.as_ref().is_some_and(|s| !s.is_empty());
    match first {
        "var" if valid(&name(1)) => Reference::Var(name(1).unwrap_or_default()),
        "local" if valid(&name(1)) => Reference::Local(name(1).unwrap_or_default()),
        "module" if valid(&name(1)) => Reference::ModuleOutput {
            call: name(1).unwrap_or_default(),
            output: name(2),
        },
        "each" => Reference::Each,
        "count" => Reference::CountIndex,
        "path" | "terraform" | "self" => Reference::Context,
        "data" | "ephemeral" if valid(&name(1)) && valid(&name(2)) => Reference::Resource {
            address: format!(
                "{first}.{}.{}",
                name(1).unwrap_or_default(),
                name(2).unwrap_or_default()
            ),
            attribute: name(3),
        },
        "data" | "ephemeral" | "var" | "local" | "module" | "" => Reference::Unknown,
        _ if valid(&name(1)) => Reference::Resource {
            address: format!("{first}.{}", name(1).unwrap_or_default()),
            attribute: name(2),
        },
        _ => Reference::Unknown,
    }
}

/// Terraform lists each reference with all its prefixes (`aws_x.y.arn`, `aws_x.y`); keep only
/// the most specific ones so that `aws_x.y.arn` does not widen to the whole of `aws_x.y`.
pub fn most_specific<'r>(references: &[&'r str]) -> Vec<&'r str> {
    let mut out: Vec<&str> = references
        .iter()
        .copied()
        .filter(|r| {
            !references.iter().any(|other| {
                other.len() > r.len()
                    && other.starts_with(r)
                    && matches!(other.as_bytes()[r.len()], b'.' | b'[')
            })
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(address: &str, attribute: Option<&str>) -> Reference {
        Reference::Resource {
            address: address.into(),
            attribute: attribute.map(String::from),
        }
    }

    #[test]
    fn classifies_references() {
        let cases = vec![
            (
                "var.aws_account_id",
                Reference::Var("aws_account_id".into()),
            ),
            ("var.cfg.cidrs[0]", Reference::Var("cfg".into())),
            ("var.list[0]", Reference::Var("list".into())),
            ("local.tags", Reference::Local("tags".into())),
            (
                "module.vpc.vpc_id",
                Reference::ModuleOutput {
                    call: "vpc".into(),
                    output: Some("vpc_id".into()),
                },
            ),
            (
                r#"module.net["a.b"].ids"#,
                Reference::ModuleOutput {
                    call: "net".into(),
                    output: Some("ids".into()),
                },
            ),
            (
                "module.vpc",
                Reference::ModuleOutput {
                    call: "vpc".into(),
                    output: None,
                },
            ),
            ("each.value", Reference::Each),
            ("each.key", Reference::Each),
            ("count.index", Reference::CountIndex),
            ("path.module", Reference::Context),
            ("terraform.workspace", Reference::Context),
            ("aws_s3_bucket.b.arn", res("aws_s3_bucket.b", Some("arn"))),
            (
                "aws_s3_bucket.b[0].arn",
                res("aws_s3_bucket.b", Some("arn")),
            ),
            (r#"aws_s3_bucket.b["x.y"]"#, res("aws_s3_bucket.b", None)),
            (
                "data.aws_iam_policy_document.p.json",
                res("data.aws_iam_policy_document.p", Some("json")),
            ),
            (
                "data.aws_caller_identity.c",
                res("data.aws_caller_identity.c", None),
            ),
            ("data.x", Reference::Unknown),
            ("var", Reference::Unknown),
            ("aws_s3_bucket", Reference::Unknown),
            ("", Reference::Unknown),
        ];
        for (text, want) in cases {
            assert_eq!(parse_reference(text), want, "{text}");
        }
    }

    #[test]
    fn keeps_most_specific_references() {
        let refs = [
            "tfcoremock_simple_resource.base.string",
            "tfcoremock_simple_resource.base",
            "var.a",
            "var.a",
            "var.ab",
            "module.m[0].x",
            "module.m",
        ];
        assert_eq!(
            most_specific(&refs),
            vec![
                "module.m[0].x",
                "tfcoremock_simple_resource.base.string",
                "var.a",
                "var.ab"
            ]
        );
    }
}
