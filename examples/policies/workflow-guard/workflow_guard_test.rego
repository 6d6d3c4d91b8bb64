# `opa test .` in this folder: the policy decides each call of cases.json (loaded as data) as
# workflow-guard does; test/declared/workflow-guard-policy.test.ts runs the same table through
# workflow-guard itself and the Cedar policy.
package hermes.workflow_guard_test

import rego.v1

import data.hermes.workflow_guard

decided(call) := "block" if {
	workflow_guard.decision.allow == false with input as {
		"hook": "intercept_tool_call",
		"toolName": call.tool,
		"toolArgs": call.args,
	}
} else := "pass"

test_every_call_decided_as_workflow_guard_decides_it if {
	count(data.cases) > 0
	every call in data.cases {
		decided(call) == call.want
	}
}

test_a_reader_gets_no_decision if {
	not workflow_guard.decision with input as {
		"hook": "intercept_tool_call",
		"toolName": "read",
		"toolArgs": {"path": "src/app.ts"},
	}
}
