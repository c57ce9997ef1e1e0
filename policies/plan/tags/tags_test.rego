# conftest unit tests of the required-tags set (`conftest verify -p policies/plan/tags`).
# tfgate does not load `*_test.rego` files.
package main

import rego.v1

tagged(after) := {"resource_changes": [{
	"address": "aws_sqs_queue.q",
	"mode": "managed",
	"type": "aws_sqs_queue",
	"name": "q",
	"change": {"actions": ["create"], "after": after},
}]}

test_missing_tags_warn if {
	warn_required_tags == {{"msg": "missing required tags: cost-center", "resource": "aws_sqs_queue.q"}} with input as tagged({"tags": {"owner": "a"}})
}

test_default_tags_in_tags_all_count if {
	count(warn_required_tags) == 0 with input as tagged({"tags": null, "tags_all": {"owner": "a", "cost-center": "c"}})
}

test_resources_without_tags_are_left_alone if {
	count(warn_required_tags) == 0 with input as tagged({"name": "q"})
}
