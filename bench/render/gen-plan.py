#!/usr/bin/env python3
"""Writes a realistic `terraform show -json PLANFILE` document (format 1.2) with N resource
instances, for the plan -> comment benchmark.

    python3 bench/render/gen-plan.py [--resources 10000] [--seed 1] OUT.json

Shape (what Terraform 1.5+ writes for a plan of an AWS estate):
- the resources sit in 20 `module.<service>` calls, each with 25 resource blocks of
  `count = N` (so addresses look like `module.svc_07.aws_security_group.this[3]`);
- every `resource_changes` entry has `before`/`after` objects of ~20 attributes: strings,
  numbers, booleans, a `tags` map, nested blocks (lists of objects, e.g. `ingress`,
  `root_block_device`), JSON policy documents as strings, ARNs, account ids, IPs and CIDRs;
  plus `after_unknown`, `before_sensitive`, `after_sensitive`, `replace_paths` for replaces,
  `action_reason` where Terraform sets one;
- actions: ~45 % create, ~25 % update, ~10 % delete, ~10 % replace (delete-then-create or
  create-before-destroy), ~10 % no-op (Terraform lists unchanged instances too);
- `planned_values` (every instance's after value), `prior_state` (every existing instance's
  before value), `configuration` (provider config, module calls, per-block expressions with
  references and `count_expression`), `resource_drift` (a few), `relevant_attributes`,
  `variables`, `output_changes`, `timestamp`.
Output is compact JSON, as Terraform writes it. Deterministic for a given seed.
"""

import argparse
import json
import random

SERVICES = 20
BLOCKS_PER_SERVICE = 25
PROVIDER = "registry.terraform.io/hashicorp/aws"
REGIONS = ["us-east-1", "eu-west-1", "eu-central-1", "us-west-2"]

# resource type -> short prefix of its id
TYPES = [
    ("aws_instance", "i-"),
    ("aws_security_group", "sg-"),
    ("aws_security_group_rule", "sgrule-"),
    ("aws_iam_role", ""),
    ("aws_iam_role_policy", ""),
    ("aws_iam_policy", ""),
    ("aws_s3_bucket", ""),
    ("aws_s3_bucket_policy", ""),
    ("aws_lambda_function", ""),
    ("aws_cloudwatch_log_group", ""),
    ("aws_route53_record", ""),
    ("aws_subnet", "subnet-"),
    ("aws_route_table", "rtb-"),
    ("aws_lb_target_group", ""),
    ("aws_lb_listener_rule", ""),
    ("aws_sqs_queue", ""),
    ("aws_sns_topic", ""),
    ("aws_dynamodb_table", ""),
    ("aws_kms_key", ""),
    ("aws_ecs_service", ""),
    ("aws_ecs_task_definition", ""),
    ("aws_eks_node_group", ""),
    ("aws_network_interface", "eni-"),
    ("aws_eip", "eipalloc-"),
    ("aws_ssm_parameter", ""),
]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.accounts = [f"{self.r.randrange(10**11, 10**12):012d}" for _ in range(4)]

    def hexid(self, n=17):
        return "".join(self.r.choice("0123456789abcdef") for _ in range(n))

    def uuid(self):
        h = self.hexid(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def ip(self):
        return f"10.{self.r.randrange(256)}.{self.r.randrange(256)}.{self.r.randrange(1, 255)}"

    def cidr(self):
        return f"10.{self.r.randrange(256)}.{self.r.randrange(0, 256, 16)}.0/{self.r.choice([16, 20, 24, 28])}"

    def arn(self, service, resource, region=True):
        reg = self.r.choice(REGIONS) if region else ""
        return f"arn:aws:{service}:{reg}:{self.r.choice(self.accounts)}:{resource}"

    def word(self):
        return self.r.choice(
            ["api", "web", "worker", "batch", "ingest", "billing", "auth", "search", "cache",
             "events", "reports", "payments", "gateway", "audit", "metrics", "orders"])

    def tags(self, svc, name):
        t = {
            "Name": name,
            "Service": svc,
            "Environment": self.r.choice(["prod", "staging"]),
            "Owner": f"team-{self.word()}@example.com",
            "CostCenter": f"cc-{self.r.randrange(1000, 9999)}",
            "ManagedBy": "terraform",
        }
        if self.r.random() < 0.3:
            t["Compliance"] = self.r.choice(["pci", "sox", "none"])
        return t

    def policy_doc(self, action):
        return json.dumps({
            "Version": "2012-10-17",
            "Statement": [{
                "Effect": "Allow",
                "Action": [action, action.split(":")[0] + ":List*"],
                "Resource": [self.arn(action.split(":")[0], f"{self.word()}/*")],
                "Condition": {"StringEquals": {"aws:PrincipalAccount": self.r.choice(self.accounts)}},
            }]
        }, separators=(",", ":"))

    def value(self, rtype, svc, name, idx):
        """An object of ~20 attributes (some nested) for one instance."""
        region = self.r.choice(REGIONS)
        acct = self.r.choice(self.accounts)
        full = f"{svc}-{name}-{idx}"
        v = {
            "id": f"{dict(TYPES)[rtype]}{self.hexid()}" if dict(TYPES)[rtype] else full,
            "arn": f"arn:aws:{rtype.split('_')[1]}:{region}:{acct}:{rtype[4:]}/{full}",
            "name": full,
            "description": f"{rtype.replace('_', ' ')} for {svc} ({self.word()})",
            "region": region,
            "owner_id": acct,
            "created_date": f"2024-{self.r.randrange(1, 13):02d}-{self.r.randrange(1, 29):02d}T10:{self.r.randrange(60):02d}:00Z",
            "enabled": self.r.random() < 0.8,
            "retention_in_days": self.r.choice([7, 14, 30, 90, 365]),
            "timeout": self.r.choice([3, 10, 30, 60, 900]),
            "memory_size": self.r.choice([128, 256, 512, 1024, 2048]),
            "kms_key_id": f"arn:aws:kms:{region}:{acct}:key/{self.uuid()}",
            "vpc_id": f"vpc-{self.hexid()}",
            "subnet_ids": [f"subnet-{self.hexid()}" for _ in range(self.r.randrange(1, 4))],
            "private_ip": self.ip(),
            "cidr_blocks": [self.cidr() for _ in range(self.r.randrange(1, 3))],
            "policy": self.policy_doc(self.r.choice(["s3:GetObject", "sqs:SendMessage", "kms:Decrypt", "logs:PutLogEvents"])),
            "tags": self.tags(svc, full),
            "tags_all": None,  # filled below
            "ingress": [
                {
                    "from_port": p, "to_port": p, "protocol": "tcp",
                    "cidr_blocks": [self.cidr()], "ipv6_cidr_blocks": [],
                    "description": f"{self.word()} from vpc", "self": False,
                    "security_groups": [f"sg-{self.hexid()}"],
                }
                for p in self.r.sample([22, 80, 443, 5432, 6379, 8080, 9090], self.r.randrange(1, 4))
            ],
            "root_block_device": [{
                "volume_size": self.r.choice([8, 20, 50, 100]),
                "volume_type": self.r.choice(["gp2", "gp3"]),
                "encrypted": True,
                "delete_on_termination": True,
                "iops": self.r.choice([3000, 6000]),
            }],
            "environment": [{"variables": {
                "LOG_LEVEL": self.r.choice(["info", "debug"]),
                "QUEUE_URL": f"https://sqs.{region}.amazonaws.com/{acct}/{svc}-{self.word()}",
                "REQUEST_ID": self.uuid(),
            }}],
        }
        v["tags_all"] = dict(v["tags"])
        return v

    def mutate(self, before):
        """An update: a few attributes changed."""
        after = json.loads(json.dumps(before))
        after["tags"]["CostCenter"] = f"cc-{self.r.randrange(1000, 9999)}"
        after["tags_all"] = dict(after["tags"])
        k = self.r.choice(["retention_in_days", "timeout", "memory_size", "description", "enabled"])
        if isinstance(after[k], bool):
            after[k] = not after[k]
        elif isinstance(after[k], int):
            after[k] = after[k] * 2
        else:
            after[k] = after[k] + " (updated)"
        if self.r.random() < 0.4:
            after["ingress"].append({
                "from_port": 8443, "to_port": 8443, "protocol": "tcp", "cidr_blocks": [self.cidr()],
                "ipv6_cidr_blocks": [], "description": "added", "self": False, "security_groups": [],
            })
        return after

    def unknown_for(self, after, computed=("id", "arn", "owner_id", "created_date", "private_ip")):
        u = {k: True for k in computed if k in after}
        u["tags_all"] = {}
        u["ingress"] = [{"cidr_blocks": [False], "ipv6_cidr_blocks": [], "security_groups": [False]} for _ in after["ingress"]]
        u["root_block_device"] = [{}]
        return u

    def sensitive_for(self, v):
        s = {"environment": [{"variables": {"REQUEST_ID": True}}]} if self.r.random() < 0.2 else {}
        return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--resources", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    g = Gen(args.seed)
    r = g.r

    per_block = max(1, args.resources // (SERVICES * BLOCKS_PER_SERVICE))
    changes, drift = [], []
    planned_modules, prior_modules = [], []
    module_calls = {}
    counts = {"create": 0, "update": 0, "delete": 0, "replace": 0, "no-op": 0}
    total = 0
    for s in range(SERVICES):
        svc = f"svc_{s:02d}"
        maddr = f"module.{svc}"
        planned, prior, cfg_resources = [], [], []
        for b in range(BLOCKS_PER_SERVICE):
            rtype, _ = TYPES[b % len(TYPES)]
            name = "this" if b < len(TYPES) else f"extra_{b}"
            cfg_resources.append({
                "address": f"{rtype}.{name}",
                "mode": "managed",
                "type": rtype,
                "name": name,
                "provider_config_key": f"{svc}:aws",
                "expressions": {
                    "name": {"references": ["var.name", f"local.prefix"]},
                    "description": {"constant_value": f"{rtype} for {svc}"},
                    "vpc_id": {"references": ["var.vpc_id"]},
                    "subnet_ids": {"references": ["var.subnet_ids"]},
                    "kms_key_id": {"references": ["aws_kms_key.this.arn", "aws_kms_key.this"]},
                    "tags": {"references": ["local.tags"]},
                    "retention_in_days": {"constant_value": 30},
                    "ingress": [{"from_port": {"constant_value": 443}, "to_port": {"constant_value": 443},
                                 "protocol": {"constant_value": "tcp"},
                                 "cidr_blocks": {"references": ["var.allowed_cidrs"]}}],
                },
                "schema_version": r.choice([0, 1, 2]),
                "count_expression": {"references": ["var.instance_count"]},
            })
            for i in range(per_block):
                if total >= args.resources:
                    break
                total += 1
                addr = f"{maddr}.{rtype}.{name}[{i}]"
                p = r.random()
                if p < 0.45:
                    action = "create"
                elif p < 0.70:
                    action = "update"
                elif p < 0.80:
                    action = "delete"
                elif p < 0.90:
                    action = "replace"
                else:
                    action = "no-op"
                counts[action] += 1
                before = None if action == "create" else g.value(rtype, svc, name, i)
                if action == "create":
                    after = g.value(rtype, svc, name, i)
                elif action == "update":
                    after = g.mutate(before)
                elif action == "delete":
                    after = None
                elif action == "replace":
                    after = g.value(rtype, svc, name, i)
                    after["name"] = before["name"] + "-v2"
                else:
                    after = before
                ch = {
                    "actions": {
                        "create": ["create"], "update": ["update"], "delete": ["delete"], "no-op": ["no-op"],
                        "replace": r.choice([["delete", "create"], ["create", "delete"]]),
                    }[action],
                    "before": before,
                    "after": after,
                    "after_unknown": g.unknown_for(after) if action in ("create", "replace") else ({} if after else {}),
                    "before_sensitive": g.sensitive_for(before) if before else False,
                    "after_sensitive": g.sensitive_for(after) if after else False,
                }
                if action == "replace":
                    ch["replace_paths"] = [["name"]] if r.random() < 0.7 else [["subnet_ids"], ["vpc_id"]]
                rc = {
                    "address": addr,
                    "module_address": maddr,
                    "mode": "managed",
                    "type": rtype,
                    "name": name,
                    "index": i,
                    "provider_name": PROVIDER,
                    "change": ch,
                }
                if action == "replace":
                    rc["action_reason"] = "replace_because_cannot_update"
                elif action == "delete":
                    rc["action_reason"] = r.choice(["delete_because_count_index", "delete_because_no_resource_config"])
                changes.append(rc)
                inst = {"address": addr, "mode": "managed", "type": rtype, "name": name, "index": i,
                        "provider_name": PROVIDER, "schema_version": 1}
                if after is not None:
                    planned.append(dict(inst, values=after, sensitive_values=ch["after_sensitive"] or {}))
                if before is not None:
                    prior.append(dict(inst, values=before, sensitive_values=ch["before_sensitive"] or {}))
                    if r.random() < 0.003:
                        drifted = json.loads(json.dumps(before))
                        drifted["tags"]["Owner"] = "console-edit@example.com"
                        drift.append({**{k: rc[k] for k in ("address", "module_address", "mode", "type", "name", "index", "provider_name")},
                                      "change": {"actions": ["update"], "before": before, "after": drifted,
                                                 "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}}})
        planned_modules.append({"address": maddr, "resources": planned})
        prior_modules.append({"address": maddr, "resources": prior})
        module_calls[svc] = {
            "source": f"./modules/{svc}",
            "expressions": {
                "name": {"constant_value": svc},
                "vpc_id": {"references": ["module.network.vpc_id", "module.network"]},
                "subnet_ids": {"references": ["module.network.private_subnet_ids", "module.network"]},
                "allowed_cidrs": {"references": ["var.admin_cidrs"]},
                "instance_count": {"constant_value": per_block},
            },
            "module": {
                "resources": cfg_resources,
                "variables": {k: {"description": f"{k} of the service"} for k in
                              ("name", "vpc_id", "subnet_ids", "allowed_cidrs", "instance_count")},
                "outputs": {"arns": {"expression": {"references": ["aws_iam_role.this"]}}},
            },
        }

    doc = {
        "format_version": "1.2",
        "terraform_version": "1.6.6",
        "variables": {
            "admin_cidrs": {"value": [g.cidr(), g.cidr()]},
            "region": {"value": "us-east-1"},
            "environment": {"value": "prod"},
        },
        "planned_values": {"outputs": {"service_count": {"sensitive": False, "type": "number", "value": SERVICES}},
                           "root_module": {"child_modules": planned_modules}},
        "resource_drift": drift,
        "resource_changes": changes,
        "output_changes": {"service_count": {"actions": ["no-op"], "before": SERVICES, "after": SERVICES,
                                             "after_unknown": False, "before_sensitive": False, "after_sensitive": False}},
        "prior_state": {"format_version": "1.0", "terraform_version": "1.6.6",
                        "values": {"outputs": {"service_count": {"sensitive": False, "value": SERVICES, "type": "number"}},
                                   "root_module": {"child_modules": prior_modules}}},
        "configuration": {
            "provider_config": {"aws": {"name": "aws", "full_name": PROVIDER, "version_constraint": "~> 5.0",
                                        "expressions": {"region": {"references": ["var.region"]}}}},
            "root_module": {
                "outputs": {"service_count": {"expression": {"constant_value": SERVICES}}},
                "module_calls": module_calls,
                "variables": {"admin_cidrs": {}, "region": {"default": "us-east-1"}, "environment": {}},
            },
        },
        "relevant_attributes": [{"resource": d["address"], "attribute": ["tags"]} for d in drift],
        "timestamp": "2024-06-01T10:00:00Z",
        "errored": False,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    import sys
    print(f"gen-plan: {total} resource instances {counts} drift={len(drift)} -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
