# No security group open to the world on port 22 (SSH): inline `ingress` blocks of
# aws_security_group, aws_security_group_rule of type ingress, and
# aws_vpc_security_group_ingress_rule, created or updated, whose source is 0.0.0.0/0 or ::/0
# and whose protocol and port range take in TCP port 22 (protocol -1 takes in every port).
#
# The message names no CIDR: the resource address says where, the text says what.
package main

import rego.v1

ssh_message := "ingress open to the world on port 22 (SSH): allow a known address range, or use SSM Session Manager"

deny_world_ssh contains {"msg": ssh_message, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_security_group"
	changed(rc)
	some rule in as_list(rc.change.after.ingress)
	open_to_world(rule.cidr_blocks, rule.ipv6_cidr_blocks)
	takes_in_ssh(rule.protocol, rule.from_port, rule.to_port)
}

deny_world_ssh contains {"msg": ssh_message, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_security_group_rule"
	changed(rc)
	rule := rc.change.after
	rule.type == "ingress"
	open_to_world(rule.cidr_blocks, rule.ipv6_cidr_blocks)
	takes_in_ssh(rule.protocol, rule.from_port, rule.to_port)
}

deny_world_ssh contains {"msg": ssh_message, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_vpc_security_group_ingress_rule"
	changed(rc)
	rule := rc.change.after
	open_to_world([rule.cidr_ipv4], [rule.cidr_ipv6])
	takes_in_ssh(rule.ip_protocol, rule.from_port, rule.to_port)
}

open_to_world(v4, _) if {
	some cidr in as_list(v4)
	cidr in world_cidrs
}

open_to_world(_, v6) if {
	some cidr in as_list(v6)
	cidr in world_cidrs
}

# Every protocol, hence every port.
takes_in_ssh(protocol, _, _) if lower(sprintf("%v", [protocol])) in {"-1", "all"}

# TCP (by name or number) with a port range that holds 22.
takes_in_ssh(protocol, from, to) if {
	lower(sprintf("%v", [protocol])) in {"tcp", "6"}
	from <= 22
	to >= 22
}
