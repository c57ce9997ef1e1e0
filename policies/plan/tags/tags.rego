# Required tags on AWS resources: every managed `aws_*` resource the plan creates or updates
# that takes tags (its planned values have `tags` or `tags_all`) must carry each tag of
# `required_tags` (exact, case-sensitive keys). Tags set by the provider's `default_tags`
# count: they are in `tags_all`. When `tags_all` is not known at plan time, only `tags` is
# read.
#
# `warn` rules: the set is shipped with `enforcement: warn`; its findings are shown, never
# block.
package main

import rego.v1

required_tags := ["owner", "cost-center"]

warn_required_tags contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	object.get(rc, "mode", "managed") == "managed"
	startswith(rc.type, "aws_")
	some action in rc.change.actions
	action in {"create", "update"}
	takes_tags(rc.change.after)
	tags := planned_tags(rc.change.after)
	missing := [t | some t in required_tags; not has_tag(tags, t)]
	count(missing) > 0
	msg := sprintf("missing required tags: %s", [concat(", ", missing)])
}

takes_tags(after) if "tags" in object.keys(after)

takes_tags(after) if "tags_all" in object.keys(after)

planned_tags(after) := object.union(object_or_empty(after, "tags"), object_or_empty(after, "tags_all"))

object_or_empty(after, key) := after[key] if {
	is_object(after[key])
} else := {}

has_tag(tags, key) if {
	value := tags[key]
	value != null
	value != ""
}
