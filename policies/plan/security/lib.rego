# Helpers shared by the rules of the `no-public-exposure` set (package main, conftest style).
package main

import rego.v1

# A resource the plan creates or updates (a replace creates); deletes, reads and no-ops are
# left alone. Only `after` values known at plan time are checked: a value Terraform learns
# during the apply (`after_unknown`) cannot be judged here.
changed(rc) if {
	some action in rc.change.actions
	action in {"create", "update"}
}

# The whole IPv4 or IPv6 internet.
world_cidrs := {"0.0.0.0/0", "::/0"}

# The module instance of a resource change: "" for the root module,
# `module.a["x"].module.b` otherwise.
module_instance(rc) := object.get(rc, "module_address", "")

# The same module in the configuration: the instance keys dropped (`module.a.module.b`).
module_in_config(rc) := regex.replace(module_instance(rc), `\[[^\]]*\]`, "")

# A list attribute, or [] when it is null (iterating over null is an error in tfgate's
# interpreter, which fails the set closed).
as_list(x) := x if {
	is_array(x)
} else := []
