"""Drives the real bridge through the Python client with an extension whose handler starts a timer
that throws (on the tool ``bomb``): the call in flight comes back refused, naming the extension,
the turn's next call too, and a new turn is judged by the extensions loaded afresh.
Usage: check_extension_crash.py NODE HERMES_BIN PROJECT_DIR (HERMES_HOME in the environment)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
from hermes_extensions_client import HermesExtensions  # noqa: E402

node, hermes_bin, project = sys.argv[1:4]
report = {}

hooks = HermesExtensions(command=(node, hermes_bin, "extensions", "serve", "--stdio"), cwd=project)
with hooks.turn(session_id="py-crash") as turn:
    report["crashed"] = turn.intercept_tool_call("bomb", {})
    report["same_turn"] = turn.intercept_tool_call("read", {"path": "a.py"})
with hooks.turn(session_id="py-crash") as turn:
    report["next_turn"] = turn.intercept_tool_call("read", {"path": "a.py"})
hooks.close()
report["exit_code"] = hooks._process.returncode

print(json.dumps(report))
