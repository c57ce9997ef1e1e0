#!/usr/bin/env python3
"""Writes a realistic `terraform apply -json` log (~100 MB) for the redaction benchmark.

    python3 bench/redact/gen-apply-log.py [--mb 100] [--seed 1] OUT.jsonl

The lines have the shapes Terraform 1.x writes (see tests/fixtures/tf-real/apply.jsonl and
tests/fixtures/tf-json/*.log): version, planned_change, refresh_start/refresh_complete,
apply_start, apply_progress, apply_complete (with id_key/id_value), apply_errored,
provision_progress, diagnostic (AWS errors: assumed-role ARNs, account ids, request ids,
emails, encoded authorization messages, access key ids), change_summary and outputs.
About one line in four carries something to redact: an ARN, a 12-digit account id, an IPv4
address or CIDR, a UUID request id, an email or an access key id. Deterministic for a seed.

Also writes OUT.planted: values that appear in the log and must not survive redaction (one a
line: the account ids, the emails, the access key ids, some IPs), for the benchmark's check.
"""

import argparse
import json
import random
import time

REGIONS = ["us-east-1", "eu-west-1", "eu-central-1", "us-west-2"]
TYPES = ["aws_instance", "aws_security_group", "aws_iam_role", "aws_iam_role_policy",
         "aws_s3_bucket", "aws_lambda_function", "aws_cloudwatch_log_group", "aws_route53_record",
         "aws_subnet", "aws_eks_node_group", "aws_lb_target_group", "aws_sqs_queue",
         "aws_kms_key", "aws_ecs_service", "aws_eip", "aws_network_interface"]
WORDS = ["api", "web", "worker", "batch", "ingest", "billing", "auth", "search", "cache",
         "events", "reports", "payments", "gateway", "audit", "metrics", "orders"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        r = self.r
        self.accounts = [f"{r.randrange(10**11, 10**12):012d}" for _ in range(6)]
        self.emails = [f"{w}.{s}@{d}" for w, s, d in
                       zip(["alice", "bob", "carol", "dave", "erin", "frank"],
                           ["smith", "jones", "ng", "okafor", "silva", "muller"],
                           ["example.com", "corp.example.org", "example.co.uk", "example.com",
                            "mail.example.net", "example.io"])]
        self.keys = ["AKIA" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
                     for _ in range(3)] + \
                    ["ASIA" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
                     for _ in range(3)]
        self.ips = []
        self.t = 1_733_130_000.0

    def hexid(self, n=17):
        return "".join(self.r.choice("0123456789abcdef") for _ in range(n))

    def uuid(self):
        h = self.hexid(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def ip(self):
        ip = f"10.{self.r.randrange(256)}.{self.r.randrange(256)}.{self.r.randrange(1, 255)}"
        if len(self.ips) < 20:
            self.ips.append(ip)
        return ip

    def public_ip(self):
        return f"{self.r.choice([3, 18, 34, 52, 54])}.{self.r.randrange(256)}.{self.r.randrange(256)}.{self.r.randrange(1, 255)}"

    def cidr(self):
        return f"10.{self.r.randrange(256)}.{self.r.randrange(0, 256, 16)}.0/{self.r.choice([16, 20, 24, 28])}"

    def ts(self):
        self.t += self.r.random() * 0.05
        whole = int(self.t)
        frac = int((self.t - whole) * 1e6)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{frac:06d}Z"

    def resource(self):
        r = self.r
        t = r.choice(TYPES)
        mod = f"module.{r.choice(WORDS)}_{r.randrange(20):02d}"
        name = r.choice(["this", "main", r.choice(WORDS)])
        key = r.randrange(40)
        addr = f"{mod}.{t}.{name}[{key}]"
        return {"addr": addr, "module": mod, "resource": f"{t}.{name}[{key}]", "implied_provider": "aws",
                "resource_type": t, "resource_name": name, "resource_key": key}

    def id_value(self, res):
        r = self.r
        t = res["resource_type"]
        region, acct = r.choice(REGIONS), r.choice(self.accounts)
        if t in ("aws_iam_role", "aws_iam_role_policy"):
            return "id", f"arn:aws:iam::{acct}:role/{res['resource_name']}-{r.randrange(1000)}"
        if t == "aws_instance":
            return "id", f"i-{self.hexid()}"
        if t == "aws_security_group":
            return ("cidr_block", self.cidr()) if r.random() < 0.5 else ("id", f"sg-{self.hexid()}")
        if t == "aws_subnet":
            return "id", f"subnet-{self.hexid()}"
        if t == "aws_eip":
            return "public_ip", self.public_ip()
        if t == "aws_network_interface":
            return "private_ip", self.ip()
        if t == "aws_kms_key":
            return "arn", f"arn:aws:kms:{region}:{acct}:key/{self.uuid()}"
        if t == "aws_sqs_queue":
            return "id", f"https://sqs.{region}.amazonaws.com/{acct}/{r.choice(WORDS)}-queue"
        if t == "aws_lambda_function":
            return "arn", f"arn:aws:lambda:{region}:{acct}:function:{r.choice(WORDS)}-handler"
        if t == "aws_eks_node_group":
            return "id", f"{r.choice(WORDS)}-cluster:{r.choice(WORDS)}-nodes"
        if t == "aws_lb_target_group":
            return "id", (f"arn:aws:elasticloadbalancing:{region}:{acct}:targetgroup/"
                          f"{r.choice(WORDS)}-tg/{self.hexid(16)}")
        if t == "aws_ecs_service":
            return "id", f"arn:aws:ecs:{region}:{acct}:service/{r.choice(WORDS)}-cluster/{r.choice(WORDS)}"
        if t == "aws_s3_bucket":
            return "id", f"{r.choice(WORDS)}-artifacts-{acct}-{region}"
        return "id", f"{r.choice(WORDS)}-{self.hexid(8)}"

    def line(self, level, message, type_, **extra):
        d = {"@level": level, "@message": message, "@module": "terraform.ui", "@timestamp": self.ts()}
        d.update(extra)
        d["type"] = type_
        return json.dumps(d, separators=(",", ":"), ensure_ascii=False)

    def diagnostic(self, res):
        r = self.r
        acct, region = r.choice(self.accounts), r.choice(REGIONS)
        email = r.choice(self.emails)
        rid = self.uuid()
        kind = r.randrange(5)
        if kind == 0:
            summary = (f"creating EKS Node Group ({res['resource_name']}): operation error EKS: CreateNodegroup, "
                       f"https response error StatusCode: 400, RequestID: {rid}, InvalidParameterException: "
                       f"Failed to validate if SLR: AWSServiceRoleForAmazonEKSNodegroup already exists due to "
                       f"missing permissions for 'iam:GetRole'")
        elif kind == 1:
            summary = (f"reading IAM Role ({res['resource_name']}): AccessDenied: User: "
                       f"arn:aws:sts::{acct}:assumed-role/tfgate-apply/{email} is not authorized to perform: "
                       f"iam:GetRole on resource: role {res['resource_name']} because no identity-based policy "
                       f"allows the iam:GetRole action\n\tstatus code: 403, request id: {rid}")
        elif kind == 2:
            blob = "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for _ in range(300))
            summary = (f"creating EC2 Instance: UnauthorizedOperation: You are not authorized to perform this "
                       f"operation. Encoded authorization failure message: {blob}\n\tstatus code: 403, "
                       f"request id: {rid}")
        elif kind == 3:
            summary = (f"creating Security Group Rule: InvalidPermission.Duplicate: the specified rule "
                       f"\"peer: {self.cidr()}, TCP, from port: 443, to port: 443, ALLOW\" already exists "
                       f"(instance {self.ip()})\n\tstatus code: 400, request id: {rid}")
        else:
            summary = (f"retrieving caller identity: InvalidClientTokenId: The security token included in the "
                       f"request is invalid (access key {r.choice(self.keys)}, account {acct}, "
                       f"region {region})\n\tstatus code: 403, request id: {rid}")
        diag = {"severity": "error", "summary": summary, "detail": "", "address": res["addr"],
                "range": {"filename": "main.tf", "start": {"line": 20, "column": 30, "byte": 810},
                          "end": {"line": 20, "column": 31, "byte": 811}},
                "snippet": {"context": f"resource \"{res['resource_type']}\" \"{res['resource_name']}\"",
                            "code": f"resource \"{res['resource_type']}\" \"{res['resource_name']}\" {{",
                            "start_line": 20, "highlight_start_offset": 29, "highlight_end_offset": 30,
                            "values": []}}
        return self.line("error", "Error: " + summary, "diagnostic", diagnostic=diag)

    def resource_lines(self):
        """The lines Terraform writes for one resource during an apply."""
        r = self.r
        res = self.resource()
        action = r.choice(["create", "create", "update", "delete", "replace"])
        out = []
        if r.random() < 0.5:
            k, v = self.id_value(res)
            out.append(self.line("info", f"{res['addr']}: Refreshing state... [{k}={v}]", "refresh_start",
                                 hook={"resource": res, "id_key": k, "id_value": v}))
            out.append(self.line("info", f"{res['addr']}: Refresh complete [{k}={v}]", "refresh_complete",
                                 hook={"resource": res, "id_key": k, "id_value": v}))
        verb = {"create": "Creating", "update": "Modifying", "delete": "Destroying", "replace": "Creating"}[action]
        out.append(self.line("info", f"{res['addr']}: {verb}...", "apply_start",
                             hook={"resource": res, "action": action}))
        for s in range(r.randrange(0, 4)):
            el = 10 * (s + 1)
            out.append(self.line("info", f"{res['addr']}: Still {verb.lower()}... [{el}s elapsed]", "apply_progress",
                                 hook={"resource": res, "action": action, "elapsed_seconds": el}))
        if r.random() < 0.04:
            out.append(self.line("info", f"{res['addr']}: Provisioning with 'local-exec'...", "provision_start",
                                 hook={"resource": res, "provisioner": "local-exec"}))
            out.append(self.line("info", f"{res['addr']}: (local-exec): Connecting to {self.ip()}:22 as ec2-user",
                                 "provision_progress",
                                 hook={"resource": res, "provisioner": "local-exec",
                                       "output": f"Connecting to {self.ip()}:22 as ec2-user"}))
        if r.random() < 0.03:
            out.append(self.line("info", f"{res['addr']}: Creation errored after 1s", "apply_errored",
                                 hook={"resource": res, "action": action, "elapsed_seconds": 1}))
            out.append(self.diagnostic(res))
        else:
            k, v = self.id_value(res)
            done = {"create": "Creation", "update": "Modifications", "delete": "Destruction",
                    "replace": "Creation"}[action]
            suffix = "" if action == "delete" else f" [{k}={v}]"
            hook = {"resource": res, "action": action, "elapsed_seconds": r.randrange(0, 40)}
            if action != "delete":
                hook.update(id_key=k, id_value=v)
            out.append(self.line("info", f"{res['addr']}: {done} complete after {hook['elapsed_seconds']}s{suffix}",
                                 "apply_complete", hook=hook))
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    g = Gen(args.seed)
    target = int(args.mb * 1_000_000)
    n = 0
    with open(args.out, "w", encoding="utf-8") as f:
        first = g.line("info", "Terraform 1.6.6", "version", terraform="1.6.6", ui="1.2") + "\n"
        f.write(first)
        n += len(first.encode())
        while n < target:
            chunk = "\n".join(g.resource_lines()) + "\n"
            f.write(chunk)
            n += len(chunk.encode())
        outs = {"vpc_cidr": {"sensitive": False, "type": "string", "value": g.cidr()},
                "nat_ip": {"sensitive": False, "type": "string", "value": g.public_ip()},
                "deployer": {"sensitive": False, "type": "string", "value": g.emails[0]}}
        f.write(g.line("info", "Outputs: 3", "outputs", outputs=outs) + "\n")
        f.write(g.line("info", "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.", "change_summary",
                       changes={"add": 0, "change": 0, "remove": 0, "operation": "apply"}) + "\n")
    with open(args.out + ".planted", "w") as f:
        for v in g.accounts + g.emails + g.keys + g.ips:
            f.write(v + "\n")
    import sys
    print(f"gen-apply-log: {n} bytes -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
