# conftest unit tests of the no-public-exposure set (`conftest verify -p policies/plan/security`).
# tfgate does not load `*_test.rego` files.
package main

import rego.v1

sg(ingress) := {"resource_changes": [{
	"address": "aws_security_group.s",
	"mode": "managed",
	"type": "aws_security_group",
	"name": "s",
	"change": {"actions": ["create"], "after": {"ingress": ingress}},
}]}

ingress_rule(cidr, protocol, from, to) := {
	"cidr_blocks": [cidr],
	"ipv6_cidr_blocks": null,
	"protocol": protocol,
	"from_port": from,
	"to_port": to,
}

test_world_ssh_is_denied if {
	count(deny_world_ssh) == 1 with input as sg([ingress_rule("0.0.0.0/0", "tcp", 22, 22)])
}

test_world_all_protocols_is_denied if {
	count(deny_world_ssh) == 1 with input as sg([ingress_rule("0.0.0.0/0", "-1", 0, 0)])
}

test_private_ssh_and_world_https_pass if {
	count(deny_world_ssh) == 0 with input as sg([ingress_rule("10.0.0.0/8", "tcp", 22, 22), ingress_rule("0.0.0.0/0", "tcp", 443, 443)])
}

bucket_plan(flags) := {
	"resource_changes": [
		{
			"address": "aws_s3_bucket.b",
			"mode": "managed",
			"type": "aws_s3_bucket",
			"name": "b",
			"change": {"actions": ["create"], "after": {}},
		},
		{
			"address": "aws_s3_bucket_public_access_block.b",
			"mode": "managed",
			"type": "aws_s3_bucket_public_access_block",
			"name": "b",
			"change": {"actions": ["create"], "after": flags},
		},
	],
	"configuration": {"root_module": {"resources": [{
		"address": "aws_s3_bucket_public_access_block.b",
		"type": "aws_s3_bucket_public_access_block",
		"name": "b",
		"expressions": {"bucket": {"references": ["aws_s3_bucket.b.id", "aws_s3_bucket.b"]}},
	}]}},
}

all_true := {"block_public_acls": true, "block_public_policy": true, "ignore_public_acls": true, "restrict_public_buckets": true}

test_bucket_with_its_block_passes if {
	count(deny_s3_bucket_without_public_access_block) == 0 with input as bucket_plan(all_true)
	count(deny_s3_public_access_block) == 0 with input as bucket_plan(all_true)
}

test_block_with_a_flag_off_is_denied if {
	count(deny_s3_public_access_block) == 1 with input as bucket_plan(object.union(all_true, {"ignore_public_acls": false}))
}

test_bucket_without_block_is_denied if {
	plan := {"resource_changes": [bucket_plan(all_true).resource_changes[0]]}
	count(deny_s3_bucket_without_public_access_block) == 1 with input as plan
}
