#!/usr/bin/env python3
"""Write a `terraform show -json` style plan of N resources (default 10,000) for the plan
policy benchmark (bench/policy/run.sh): security groups with inline ingress, security group
rules, VPC ingress rules, S3 buckets with their public access blocks (referring to them in
`configuration`), and tagged resources; half in the root module, half in `for_each`
instances of a module. A few of each break the example sets' rules (world SSH, a bucket
without a block, a block with a flag off, missing tags), so the rules have findings to build.

    python3 bench/policy/gen-plan.py [--resources N] OUT.json

Prints the expected finding counts on stderr.
"""

import argparse
import json
import sys

PROVIDER = "registry.terraform.io/hashicorp/aws"
FLAGS = ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]
OTHER_TYPES = ["aws_instance", "aws_iam_role", "aws_ebs_volume", "aws_sqs_queue"]


def tags(i, missing):
    t = {"Name": f"res-{i}", "owner": "team-a", "cost-center": "cc-42"}
    if missing:
        del t["cost-center"]
    return t


def ingress(cidr, port, protocol="tcp"):
    return {"cidr_blocks": [cidr], "description": "", "from_port": port, "ipv6_cidr_blocks": [],
            "prefix_list_ids": [], "protocol": protocol, "security_groups": [], "self": False,
            "to_port": port}


class Plan:
    def __init__(self):
        self.changes = []
        self.planned = {"": []}
        self.config = {"": []}
        self.expected = {"ssh": 0, "no_block": 0, "flags_off": 0, "tags": 0}

    def add(self, module, rtype, name, after, expressions=None):
        prefix = f'{module}.' if module else ""
        address = f"{prefix}{rtype}.{name}"
        unknown = {"id": True, "arn": True}
        if "tags" in after:
            after = dict(after, tags_all=after["tags"])
        change = {"address": address, "mode": "managed", "type": rtype, "name": name,
                  "provider_name": PROVIDER,
                  "change": {"actions": ["create"], "before": None, "after": after,
                             "after_unknown": unknown, "before_sensitive": False,
                             "after_sensitive": {}}}
        if module:
            change["module_address"] = module
        self.changes.append(change)
        self.planned.setdefault(module, []).append(
            {"address": address, "mode": "managed", "type": rtype, "name": name,
             "provider_name": PROVIDER, "schema_version": 0, "values": after,
             "sensitive_values": {}})
        config_module = "module.team" if module else ""
        if module and not module.endswith('["t0"]'):
            return  # one configuration block per module, whatever the instance
        exprs = expressions or {k: {"constant_value": v} for k, v in after.items()
                                if not isinstance(v, (dict, list))}
        self.config.setdefault(config_module, []).append(
            {"address": f"{rtype}.{name}", "mode": "managed", "type": rtype, "name": name,
             "provider_config_key": "aws", "expressions": exprs, "schema_version": 0})


def build(n):
    plan = Plan()
    modules = [""] + [f'module.team["t{k}"]' for k in range(10)]
    per_module = n // len(modules)
    for m_index, module in enumerate(modules):
        count = per_module if m_index else n - per_module * (len(modules) - 1)
        fill(plan, module, count)
    return plan


def fill(plan, module, count):
    i = 0
    in_module = bool(module)
    while i < count:
        k = i // 10
        slot = i % 10
        if slot == 0:
            open_ssh = k % 50 == 7
            cidr = "0.0.0.0/0" if open_ssh else "10.0.0.0/8"
            plan.add(module, "aws_security_group", f"sg{k}",
                     {"name": f"sg{k}", "description": "bench", "vpc_id": "vpc-1",
                      "ingress": [ingress(cidr, 22), ingress("0.0.0.0/0", 443)],
                      "egress": [], "tags": tags(i, False)})
            plan.expected["ssh"] += open_ssh
        elif slot == 1:
            plan.add(module, "aws_security_group_rule", f"rule{k}",
                     {"type": "ingress", "from_port": 8080, "to_port": 8080, "protocol": "tcp",
                      "cidr_blocks": ["0.0.0.0/0"], "ipv6_cidr_blocks": None,
                      "security_group_id": "sg-1"})
        elif slot == 2:
            open_ssh = k % 60 == 11
            plan.add(module, "aws_vpc_security_group_ingress_rule", f"vrule{k}",
                     {"cidr_ipv4": None, "cidr_ipv6": "::/0" if open_ssh else "fd00::/8",
                      "ip_protocol": "tcp", "from_port": 22, "to_port": 22,
                      "security_group_id": "sg-1", "tags": tags(i, False)})
            plan.expected["ssh"] += open_ssh
        elif slot == 3:
            no_block = k % 40 == 3
            plan.add(module, "aws_s3_bucket", f"b{k}",
                     {"bucket": f"bench-bucket-{module}-{k}", "force_destroy": False,
                      "tags": tags(i, False)})
            plan.expected["no_block"] += no_block
            flags_off = k % 45 == 5 and not no_block
            after = {f: not (flags_off and f == "block_public_policy") for f in FLAGS}
            after["bucket"] = None
            exprs = {f: {"constant_value": v} for f, v in after.items() if f != "bucket"}
            exprs["bucket"] = {"references": [f"aws_s3_bucket.b{k}.id", f"aws_s3_bucket.b{k}"]}
            if not no_block:
                plan.add(module, "aws_s3_bucket_public_access_block", f"b{k}", after, exprs)
                i += 1
            plan.expected["flags_off"] += flags_off
        else:
            missing = (i // 10) % 20 == 9 and slot == 5
            rtype = OTHER_TYPES[slot % len(OTHER_TYPES)]
            plan.add(module, rtype, f"r{i}", {"name": f"r{i}", "tags": tags(i, missing)})
            plan.expected["tags"] += missing
        i += 1


def document(plan):
    child = [{"address": m, "resources": r} for m, r in plan.planned.items() if m]
    team = {"source": "./modules/team", "for_each_expression": {"references": ["var.teams"]},
            "module": {"resources": plan.config.get("module.team", [])}}
    return {
        "format_version": "1.2",
        "terraform_version": "1.9.8",
        "planned_values": {"root_module": {"resources": plan.planned[""], "child_modules": child}},
        "resource_changes": plan.changes,
        "configuration": {"provider_config": {"aws": {"name": "aws", "full_name": PROVIDER}},
                          "root_module": {"resources": plan.config[""],
                                          "module_calls": {"team": team}}},
        "timestamp": "2026-12-06T00:00:00Z",
        "applyable": True,
        "complete": True,
        "errored": False,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resources", type=int, default=10000)
    ap.add_argument("out")
    args = ap.parse_args()
    plan = build(args.resources)
    with open(args.out, "w") as f:
        json.dump(document(plan), f, indent=2)
    e = plan.expected
    print(f"resources={len(plan.changes)} world_ssh={e['ssh']} bucket_without_block="
          f"{e['no_block']} block_flag_off={e['flags_off']} missing_tags={e['tags']}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
