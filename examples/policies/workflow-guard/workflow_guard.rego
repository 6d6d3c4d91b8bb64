# workflow-guard's rule for the tools that write files, before a plan exists, as Rego for an OPA
# server (docs/policies.md, workflow-guard's rule as a policy), declared with `kind: rego` and
# `path: hermes/workflow_guard/decision`. The input is the event as the http kind sends it:
# {hook, toolName, toolArgs, ...}. A writer may write only in plans/ and handoff/, named plainly;
# a name that climbs out (`..`), starts at / or ~, or is escaped (`%`, `\`) is not placed, so it is
# refused, as is what configures a program run later and a writer that names no file. Other
# tools get no decision here: the shell stays workflow-guard's (its OS sandbox). OPA reads names,
# not the disk: links are workflow-guard's.
package hermes.workflow_guard

import rego.v1

writers := {
	"write", "edit", "patch", "write_file", "create_file", "edit_file", "apply_patch",
	"apply_diff", "str_replace_editor", "str_replace_based_edit_tool", "multi_edit",
	"notebook_edit", "replace", "insert", "delete_file", "move_file", "rename_file", "copy_file",
	"create_directory", "Write", "Edit", "MultiEdit", "NotebookEdit",
}

# Argument names whose strings name a file, compared without case, `_` or `-`.
path_keys := {
	"path", "paths", "filepath", "filepaths", "filename", "file", "files", "target",
	"destination", "dest", "source", "src", "newpath", "oldpath", "notebookpath", "to", "from",
}

# Argument names whose strings are patch text.
patch_keys := {"patch", "diff", "input", "patchtext"}

no_plan := "no plan yet: until plans/active/plan.md exists, files may be written only in plans/ and handoff/; write the plan first"

normal(key) := lower(replace(replace(key, "_", ""), "-", ""))

# Each string of the arguments with the name of the argument it lies under, at any depth.
strings contains [key, value] if {
	walk(input.toolArgs, [at, value])
	is_string(value)
	keys := [k | some k in at; is_string(k)]
	count(keys) > 0
	key := normal(keys[count(keys) - 1])
}

named contains pair[1] if {
	some pair in strings
	pair[0] in path_keys
}

# The files a patch names: `*** Add/Update/Delete File:`, `*** Move to:`, `---`/`+++` lines.
patch_headers := [
	`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$`,
	`(?m)^\*\*\* Move to: (.+)$`,
	`(?m)^(?:---|\+\+\+) (?:[ab]/)?(.+)$`,
	`(?m)^rename (?:from|to) (.+)$`,
]

named contains trim_space(match[1]) if {
	some pair in strings
	pair[0] in patch_keys
	some pattern in patch_headers
	some match in regex.find_all_string_submatch_n(pattern, pair[1], -1)
	trim_space(match[1]) != "/dev/null"
}

allowed_prefix(name) if startswith(name, "plans/")
allowed_prefix(name) if startswith(name, "handoff/")
allowed_prefix(name) if startswith(name, "./plans/")
allowed_prefix(name) if startswith(name, "./handoff/")

# What configures a program run later there (git, an agent, an editor, a shell), as the sandbox
# holds it: refused in plans/ and handoff/ too, in any case.
configuring := {
	".git", ".claude", ".vscode", ".idea", ".bashrc", ".bash_profile", ".profile", ".zshrc",
	".zprofile", ".gitconfig", ".gitmodules", ".ripgreprc", ".mcp.json",
}

configures(name) if {
	some part in split(lower(name), "/")
	part in configuring
}

placed(name) if {
	allowed_prefix(name)
	not contains(name, "..")
	not contains(name, "%")
	not contains(name, `\`)
	not configures(name)
}

decision := {"allow": false, "reason": no_plan} if {
	input.toolName in writers
	some name in named
	not placed(name)
} else := {"allow": false, "reason": "no plan yet: a writer that names no file cannot be placed in plans/ or handoff/; write the plan first"} if {
	input.toolName in writers
	count(named) == 0
} else := {"allow": true} if {
	input.toolName in writers
}
