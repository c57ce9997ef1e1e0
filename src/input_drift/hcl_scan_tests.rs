use super::*;

const MAIN_TF: &str = r#"
# resource "fake_commented" "out" {}
/* resource "fake_block" "comment" {
} */
terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }
}

provider "aws" {
  region = var.region
}

provider "aws" {
  alias  = "east"
  region = "us-east-1"
}

locals {
  name = "${var.env}-eks" # trailing comment with var.not_a_ref
  cidrs = concat(
    var.admin_cidrs,           // the secret-backed list
    [for c in var.extra : c.cidr],
  )
  policy = <<-EOT
    {"Resource": "arn:aws:iam::${var.account_id}:role/x", "Brace": "}"}
    var.inside_heredoc_text
  EOT
  braces = "{ not a block } ${local.name}"
  tags = merge(module.labels.tags, { Owner = "team" })
  subnet = aws_subnet.private["a"].id
}

resource "aws_eks_cluster" "this" {
  name = local.name
  vpc_config {
    public_access_cidrs = local.cidrs
    dynamic "inner" {
      for_each = var.inner_items
      content { value = inner.value }
    }
  }
  dynamic "encryption_config" {
    for_each = var.kms_key_arn == null ? [] : [1]
    content {
      provider { key_arn = var.kms_key_arn }
    }
  }
}

data "aws_caller_identity" "current" {}

module "vpc" {
  source  = "../modules/vpc"
  cidr    = var.vpc_cidr
}

module "remote" {
  source = "terraform-aws-modules/eks/aws"
}

module "templated" {
  source = "./m/${var.x}"
}

variable "admin_cidrs" {
  type    = list(string)
  default = ["10.0.0.0/8"] # "quoted } brace"
}

output "cluster_name" {
  value = aws_eks_cluster.this.name
}
"#;

#[test]
fn scans_declarations() {
    let scan = scan_hcl(MAIN_TF);
    assert_eq!(
        scan.resources.keys().collect::<Vec<_>>(),
        vec!["aws_eks_cluster.this", "data.aws_caller_identity.current"]
    );
    assert_eq!(scan.variables, vec!["admin_cidrs"]);
    assert_eq!(scan.outputs, vec!["cluster_name"]);
    assert_eq!(scan.providers, vec!["aws", "aws.east"]);
    assert_eq!(scan.module_calls["vpc"].as_deref(), Some("../modules/vpc"));
    assert_eq!(
        scan.module_calls["remote"].as_deref(),
        Some("terraform-aws-modules/eks/aws")
    );
    assert_eq!(scan.module_calls["templated"], None);
    assert!(scan.assignments.is_empty());
}

#[test]
fn scans_locals_with_their_references() {
    let scan = scan_hcl(MAIN_TF);
    let want: Vec<(&str, Vec<&str>)> = vec![
        ("braces", vec!["local.name"]),
        ("cidrs", vec!["var.admin_cidrs", "var.extra"]),
        ("name", vec!["var.env"]),
        ("policy", vec!["var.account_id"]),
        ("subnet", vec![r#"aws_subnet.private["a"].id"#]),
        ("tags", vec!["module.labels.tags"]),
    ];
    let got: Vec<(&str, Vec<&str>)> = scan
        .locals
        .iter()
        .map(|(k, v)| (k.as_str(), v.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn scans_dynamic_blocks_under_their_top_level_block() {
    let scan = scan_hcl(MAIN_TF);
    let dynamics = &scan.resources["aws_eks_cluster.this"];
    assert_eq!(dynamics["vpc_config"], vec!["var.inner_items"]);
    assert_eq!(dynamics["encryption_config"], vec!["var.kms_key_arn"]);
    assert_eq!(dynamics.len(), 2);
}

#[test]
fn scans_tfvars_assignments() {
    let scan = scan_hcl(
        "admin_cidrs = [\n  \"10.0.0.1/32\", # first admin\n  \"10.0.0.2/32\",\n]\nenv = \"prod\"\n# other = 1\nmap = {\n  a = 1\n}\n",
    );
    assert_eq!(scan.assignments, vec!["admin_cidrs", "env", "map"]);
}

#[test]
fn tolerates_broken_input() {
    for text in [
        "resource \"a_b\" \"c\" {",
        "resource \"a_b\" \"c\" { name = \"unterminated\n}",
        "locals { x = var.a\n",
        "}}}} {{ \"",
        "<<EOT\nno end",
        "resource \"x_y\" {\n}\n",
        "\u{feff}variable \"é\" {}\n",
        "",
    ] {
        let _ = scan_hcl(text);
    }
    let scan = scan_hcl("resource \"a_b\" \"c\" { name = \"unterminated\n}\nvariable \"v\" {}\n");
    assert!(scan.resources.contains_key("a_b.c"));
    assert_eq!(scan.variables, vec!["v"]);
}

#[test]
fn references_ignore_strings_comments_and_functions() {
    let text = "x = \"var.in_string ${var.real}\" # var.comment\ny = lookup(var.m, \"k\") + each.value.a + count.index\n";
    let blanked = blank_literals(text);
    assert_eq!(
        references_in(&blanked, (0, text.len())),
        vec!["count.index", "each.value.a", "var.m", "var.real"]
    );
}

proptest::proptest! {
    #[test]
    fn never_panics_and_keeps_length(text in "[a-z\"{}#/*<$%\\\\\n =.\\[\\]-]{0,200}") {
        let blanked = blank_literals(&text);
        proptest::prop_assert_eq!(blanked.code.len(), text.len());
        let _ = scan_hcl(&text);
    }
}
