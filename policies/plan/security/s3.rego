# S3 buckets must block public access.
#
# - deny_s3_public_access_block: an aws_s3_bucket_public_access_block (or the account-wide
#   aws_s3_account_public_access_block) created or updated with any of its four flags not
#   true.
# - deny_s3_bucket_without_public_access_block: an aws_s3_bucket the plan creates with no
#   public access block for it in the plan. A block is for a bucket when its `bucket`
#   argument refers to that bucket in the same module instance (`bucket =
#   aws_s3_bucket.x.id`, read from the plan's `configuration`, modules up to three levels
#   deep), or names the same bucket when both names are known at plan time. An account-wide
#   block with all four flags true covers every bucket. A block reached only through a module
#   variable or a local is not traced: such a bucket is reported (fails safe).
package main

import rego.v1

public_access_flags := ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]

public_access_block_types := {"aws_s3_bucket_public_access_block", "aws_s3_account_public_access_block"}

deny_s3_public_access_block contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type in public_access_block_types
	changed(rc)
	off := flags_not_true(rc.change.after)
	count(off) > 0
	msg := sprintf("public access block does not set %s to true: all four flags must be true", [concat(", ", off)])
}

deny_s3_bucket_without_public_access_block contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_s3_bucket"
	"create" in rc.change.actions
	not bucket_has_block(rc)
	msg := "S3 bucket created without a public access block: add an aws_s3_bucket_public_access_block for it with all four flags true"
}

flags_not_true(after) := [flag | some flag in public_access_flags; object.get(after, flag, null) != true]

bucket_has_block(_) if count(account_blocks_all_true) > 0

bucket_has_block(rc) if sprintf("ref|%s|aws_s3_bucket.%s", [module_instance(rc), rc.name]) in blocked

bucket_has_block(rc) if {
	is_string(rc.change.after.bucket)
	sprintf("name|%s", [rc.change.after.bucket]) in blocked
}

account_blocks_all_true contains rc.address if {
	some rc in input.resource_changes
	rc.type == "aws_s3_account_public_access_block"
	rc.change.after != null
	count(flags_not_true(rc.change.after)) == 0
}

# What the planned bucket-level blocks point at: `ref|<module instance>|<reference>` for each
# reference of their `bucket` argument, and `name|<bucket>` when the name is known.
blocked contains sprintf("ref|%s|%s", [module_instance(rc), ref]) if {
	some rc in input.resource_changes
	rc.type == "aws_s3_bucket_public_access_block"
	rc.change.after != null
	config := block_config[sprintf("%s|%s.%s", [module_in_config(rc), rc.type, rc.name])]
	some ref in as_list(config.expressions.bucket.references)
}

blocked contains sprintf("name|%s", [rc.change.after.bucket]) if {
	some rc in input.resource_changes
	rc.type == "aws_s3_bucket_public_access_block"
	is_string(rc.change.after.bucket)
}

# The configuration of every bucket-level block, by `<module in config>|<address>`.
block_config[key] := r if {
	some path, m in config_modules
	some r in m.resources
	r.type == "aws_s3_bucket_public_access_block"
	key := sprintf("%s|%s", [path, r.address])
}

# The configuration's modules by path ("" for the root), three levels below the root.
config_modules[""] := input.configuration.root_module

config_modules[path] := m if {
	some n1, c1 in input.configuration.root_module.module_calls
	path := sprintf("module.%s", [n1])
	m := c1.module
}

config_modules[path] := m if {
	some n1, c1 in input.configuration.root_module.module_calls
	some n2, c2 in c1.module.module_calls
	path := sprintf("module.%s.module.%s", [n1, n2])
	m := c2.module
}

config_modules[path] := m if {
	some n1, c1 in input.configuration.root_module.module_calls
	some n2, c2 in c1.module.module_calls
	some n3, c3 in c2.module.module_calls
	path := sprintf("module.%s.module.%s.module.%s", [n1, n2, n3])
	m := c3.module
}
