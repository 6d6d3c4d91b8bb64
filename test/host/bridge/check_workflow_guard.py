"""Drives the real bridge with workflow-guard: an edit is blocked without a plan and allowed with
one, calls of two turns interleave from threads, a bad call is an error, not a crash, and a request
past the line cap is refused without losing the calls after it.
Usage: check_workflow_guard.py NODE HERMES_BIN PROJECT_DIR (HERMES_HOME in the environment)."""

import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
from hermes_extensions_client import BridgeError, HermesExtensions  # noqa: E402

node, hermes_bin, project = sys.argv[1:4]
report = {}

with HermesExtensions(command=(node, hermes_bin, "extensions", "serve", "--stdio"), cwd=project) as hooks:
    report["extensions"] = [e["name"] for e in hooks.info["extensions"] if e["status"] == "enabled"]
    with hooks.turn(session_id="py-1") as turn:
        r = turn.transform_user_input("fix the login bug")
        report["rewritten"] = r["value"]
        r = turn.before_llm_call([{"role": "user", "content": r["value"]}], "You are Hermes.")
        report["reminder"] = r["value"]["messages"][-1]["content"]
        r = turn.intercept_tool_call("write", {"path": "src/login.py", "content": "x"})
        report["before_plan"] = [r["blocked"], r.get("blocked_by")]
        r = turn.intercept_tool_call("write", {"path": "plans/active/plan.md", "content": "# plan"})
        report["plan_write_allowed"] = not r["blocked"]
        os.makedirs(os.path.join(project, "plans", "active"), exist_ok=True)
        with open(os.path.join(project, "plans", "active", "plan.md"), "w") as f:
            f.write("# Plan\n1. fix it\n")
        r = turn.intercept_tool_call("write", {"path": "src/login.py", "content": "x"})
        report["after_plan"] = [r["blocked"], r.get("blocked_by")]
        try:
            turn.intercept_tool_call("write", "not an object")
        except BridgeError as error:
            report["bad_call"] = error.code

    results = {}

    def worker(name):
        with hooks.turn(session_id=name) as t:
            results[name] = [t.intercept_tool_call("read", {"path": f"{name}.txt"})["blocked"] for _ in range(20)]

    threads = [threading.Thread(target=worker, args=(f"s{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report["parallel"] = sorted(results.items())

# A request past the line cap is refused before it is sent (the bridge could only answer it with
# id null), and the calls after it go on.
command = (node, hermes_bin, "extensions", "serve", "--stdio")
with HermesExtensions(command=command, cwd=project, max_line_bytes=4096) as small:
    with small.turn(session_id="py-big") as turn:
        try:
            turn.intercept_tool_call("write", {"path": "notes.txt", "content": "x" * 10000})
        except BridgeError as error:
            report["too_long"] = error.code
        report["after_too_long"] = turn.intercept_tool_call("read", {"path": "notes.txt"})["blocked"]

print(json.dumps(report))
