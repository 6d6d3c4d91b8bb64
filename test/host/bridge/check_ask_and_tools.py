"""Drives the real bridge through the Python client with an extension that restricts the tools of
a request and asks about some calls: the request's tools and who hid which come back, a call to a
hidden tool is refused, an ask comes back as ``ask`` and a later block still wins.
Usage: check_ask_and_tools.py NODE HERMES_BIN PROJECT_DIR (HERMES_HOME in the environment)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
from hermes_extensions_client import HermesExtensions  # noqa: E402

node, hermes_bin, project = sys.argv[1:4]
report = {}

with HermesExtensions(command=(node, hermes_bin, "extensions", "serve", "--stdio"), cwd=project) as hooks:
    with hooks.turn(session_id="py-ask") as turn:
        r = turn.before_llm_call([{"role": "user", "content": "deploy it"}], "S", tools=["read", "grep", "write"])
        report["tools"] = r["value"]["tools"]
        report["tool_restrictions"] = r["value"]["tool_restrictions"]
        r = turn.intercept_tool_call("write", {"path": "notes.md"})
        report["hidden"] = [r["blocked"], r.get("blocked_by"), "ask" in r]
        r = turn.intercept_tool_call("read", {"path": "deploy/app.yaml"})
        report["asked"] = [r["blocked"], r.get("ask")]
        r = turn.intercept_tool_call("read", {"path": "deploy/secret"})
        report["ask_then_block"] = [r["blocked"], r.get("message"), "ask" in r]
        r = turn.intercept_tool_call("read", {"path": "src/app.py"})
        report["plain"] = [r["blocked"], "ask" in r]

print(json.dumps(report))
