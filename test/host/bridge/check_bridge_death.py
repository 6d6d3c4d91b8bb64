"""Drives the real bridge through the Python client with an extension that crashes it once (a timer
that throws, on the tool ``bomb``), and then kills the bridge outright (on the tool ``die``): the
call the dead bridge cannot answer raises a BridgeError saying how it ended and what it said last.
Usage: check_bridge_death.py NODE HERMES_BIN PROJECT_DIR (HERMES_HOME in the environment)."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
from hermes_extensions_client import BridgeError, HermesExtensions  # noqa: E402

node, hermes_bin, project = sys.argv[1:4]
report = {}

hooks = HermesExtensions(command=(node, hermes_bin, "extensions", "serve", "--stdio"), cwd=project)
turn = hooks.call("turn/start", {"session_id": "py-death", "turn_id": "t1"})["turn_id"]
report["crashed"] = hooks.call("intercept_tool_call", {"turn_id": turn, "tool_name": "bomb", "tool_args": {}})
hooks.call("turn/end", {"turn_id": turn})
turn = hooks.call("turn/start", {"session_id": "py-death", "turn_id": "t2"})["turn_id"]
try:
    hooks.call("intercept_tool_call", {"turn_id": turn, "tool_name": "die", "tool_args": {}})
    report["error"] = None
except BridgeError as error:
    report["error"] = {"code": error.code, "message": str(error)}
try:
    hooks.call("turn/end", {"turn_id": turn})
    report["later"] = None
except BridgeError as error:
    report["later"] = {"code": error.code, "message": str(error)}

print(json.dumps(report))
