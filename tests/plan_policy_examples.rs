//! The example plan policy sets shipped in `policies/plan/` (loaded through
//! `policies/example-org-default.yaml`, as the server loads them) on real `terraform show
//! -json` plans from checkov's tests (`tests/fixtures/plan-policy/SOURCES.md`): the exact
//! failures and warnings of each.

use std::path::Path;

use tfgate::model::{Enforcement, SetOutcome};
use tfgate::plan_policy::{evaluate, Budget, CompiledSet};

fn shipped_set(name: &str) -> CompiledSet {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
    let policies = tfgate::policy_repo::store::load_dir(&dir)
        .unwrap()
        .unwrap_or_else(|problems| panic!("shipped policies have problems: {problems:?}"));
    let policy = policies
        .for_repo("acme/web")
        .expect("example-org-default covers acme/*");
    policy
        .compiled_plan_policy(name)
        .unwrap_or_else(|| panic!("no compiled set {name}"))
        .clone()
}

fn run(set: &str, fixture: &str) -> SetOutcome {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/plan-policy")
        .join(fixture);
    let plan = std::fs::read_to_string(&path).unwrap();
    let outcome = evaluate(&shipped_set(set), &plan, &Budget::default());
    assert_eq!(outcome.error, None, "{set} on {fixture}");
    outcome
}

/// `(address, message)` of each failure, in the outcome's order.
fn failures(outcome: &SetOutcome) -> Vec<(String, String)> {
    outcome
        .failures
        .iter()
        .map(|m| {
            assert_eq!(m.rule, "deny");
            (m.address.clone().unwrap_or_default(), m.message.clone())
        })
        .collect()
}

const SSH: &str = "ingress open to the world on port 22 (SSH): allow a known address range, or use SSM Session Manager";
const NO_BLOCK: &str = "S3 bucket created without a public access block: add an aws_s3_bucket_public_access_block for it with all four flags true";

fn expected(rows: &[(&str, &str)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|(a, m)| (a.to_string(), m.to_string()))
        .collect()
}

#[test]
fn terragoat_fails_on_world_ssh_and_every_bucket_without_a_block() {
    let outcome = run("no-public-exposure", "checkov-terragoat.tfplan.json");
    assert_eq!(outcome.enforcement, Enforcement::Deny);
    assert_eq!(
        failures(&outcome),
        expected(&[
            ("aws_s3_bucket.data", NO_BLOCK),
            ("aws_s3_bucket.data_science", NO_BLOCK),
            ("aws_s3_bucket.financials", NO_BLOCK),
            ("aws_s3_bucket.flowbucket", NO_BLOCK),
            ("aws_s3_bucket.logs", NO_BLOCK),
            ("aws_s3_bucket.operations", NO_BLOCK),
            ("aws_security_group.web-node", SSH),
        ])
    );
    assert!(outcome.warnings.is_empty());
}

#[test]
fn a_block_with_flags_off_fails_and_blocks_found_through_references_pass() {
    let outcome = run("no-public-exposure", "checkov-nested-modules.tfplan.json");
    assert_eq!(
        failures(&outcome),
        expected(&[(
            "module.s3_bucket.aws_s3_bucket_public_access_block.this[0]",
            "public access block does not set block_public_acls, block_public_policy, \
             ignore_public_acls, restrict_public_buckets to true: all four flags must be true"
        )])
    );
    // The same plan with that block's four flags true: every bucket (root, module,
    // sub-module, registry module) has its block, found through `bucket = aws_s3_bucket.x.id`.
    let outcome = run(
        "no-public-exposure",
        "checkov-nested-modules-blocked.tfplan.json",
    );
    assert_eq!(failures(&outcome), expected(&[]));
}

#[test]
fn all_traffic_from_the_world_in_for_each_modules_takes_in_ssh() {
    let outcome = run("no-public-exposure", "checkov-for-each-sg.tfplan.json");
    assert_eq!(
        failures(&outcome),
        expected(&[
            ("module.sg[\"awful_example\"].aws_security_group.bad", SSH),
            ("module.sg[\"bad_example\"].aws_security_group.bad", SSH),
            (
                "module.sg[\"terrible_example\"].aws_security_group.bad",
                SSH
            ),
        ])
    );
}

#[test]
fn a_compliant_plan_passes_both_sets() {
    for set in ["no-public-exposure", "required-tags"] {
        let outcome = run(set, "checkov-change-keys.tfplan.json");
        assert!(
            outcome.failures.is_empty() && outcome.warnings.is_empty(),
            "{set}: {outcome:?}"
        );
    }
}

#[test]
fn required_tags_warns_on_each_taggable_resource_missing_them() {
    let outcome = run("required-tags", "checkov-terragoat.tfplan.json");
    assert_eq!(outcome.enforcement, Enforcement::Warn);
    assert!(outcome.failures.is_empty());
    assert_eq!(outcome.warnings.len(), 39, "{:#?}", outcome.warnings);
    let of = |address: &str| {
        outcome
            .warnings
            .iter()
            .find(|w| w.address.as_deref() == Some(address))
            .map(|w| (w.rule.as_str(), w.message.as_str()))
    };
    let missing = Some(("warn", "missing required tags: owner, cost-center"));
    // Tagged, but not with the required keys; `tags: null`; no tags attribute at all.
    assert_eq!(of("aws_db_instance.default"), missing);
    assert_eq!(of("aws_eks_cluster.eks_cluster"), missing);
    assert_eq!(of("aws_iam_access_key.user"), None);
    assert_eq!(of("null_resource.push_image"), None);
    let outcome = run("required-tags", "checkov-for-each-sg.tfplan.json");
    assert_eq!(outcome.warnings.len(), 5, "{:#?}", outcome.warnings);
}

/// `aws_vpc_security_group_ingress_rule` (no real plan with one was found): a hand-written
/// plan in the shape Terraform writes.
#[test]
fn vpc_ingress_rules_open_to_the_world_on_22_fail() {
    let rule = |name: &str, actions: &str, after: &str| {
        format!(
            r#"{{"address": "aws_vpc_security_group_ingress_rule.{name}", "mode": "managed",
              "type": "aws_vpc_security_group_ingress_rule", "name": "{name}",
              "change": {{"actions": {actions}, "after": {after}, "after_unknown": {{}}}}}}"#
        )
    };
    let tcp = |cidr4: &str, from: u16, to: u16| {
        format!(
            r#"{{"cidr_ipv4": {cidr4}, "cidr_ipv6": null, "ip_protocol": "tcp", "from_port": {from}, "to_port": {to}}}"#
        )
    };
    let changes = [
        rule("ssh", r#"["create"]"#, &tcp(r#""0.0.0.0/0""#, 22, 22)),
        rule("range", r#"["update"]"#, &tcp(r#""0.0.0.0/0""#, 20, 30)),
        rule(
            "all_v6",
            r#"["create"]"#,
            r#"{"cidr_ipv4": null, "cidr_ipv6": "::/0", "ip_protocol": "-1", "from_port": null, "to_port": null}"#,
        ),
        rule("private", r#"["create"]"#, &tcp(r#""10.0.0.0/8""#, 22, 22)),
        rule("https", r#"["create"]"#, &tcp(r#""0.0.0.0/0""#, 443, 443)),
        rule("gone", r#"["delete"]"#, "null"),
    ];
    let plan = format!(
        r#"{{"format_version": "1.2", "resource_changes": [{}]}}"#,
        changes.join(",")
    );
    let outcome = evaluate(
        &shipped_set("no-public-exposure"),
        &plan,
        &Budget::default(),
    );
    assert_eq!(outcome.error, None);
    assert_eq!(
        failures(&outcome),
        expected(&[
            ("aws_vpc_security_group_ingress_rule.all_v6", SSH),
            ("aws_vpc_security_group_ingress_rule.range", SSH),
            ("aws_vpc_security_group_ingress_rule.ssh", SSH),
        ])
    );
}
