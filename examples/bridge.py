"""A Python host under the shipped workflow-guard, through the JSON-RPC bridge
(``hermes extensions serve --stdio``) and its stdlib-only client: a write to src/ is refused
without a plan, a write of the plan passes. Run it: python3 examples/bridge.py"""

import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
# Installed with pip (pip install ./clients/python), the import needs no path; here it is the
# client in this checkout.
sys.path.insert(0, os.path.join(PACKAGE, "clients", "python"))

from hermes_extensions_client import HermesExtensions  # noqa: E402

base = tempfile.mkdtemp(prefix="hermes-bridge-")
project = os.path.join(base, "project")
home = os.path.join(base, "hermes-home")
os.makedirs(os.path.join(project, ".git"))
os.makedirs(home)
guard = os.path.join(PACKAGE, "extensions", "workflow-guard")
with open(os.path.join(home, "config.yaml"), "w") as config:
    config.write("extensions:\n  paths: [%s]\n" % json.dumps(guard))
os.environ["HERMES_HOME"] = home

refused = False
try:
    with HermesExtensions(cwd=project) as hooks, hooks.turn(session_id="abc") as turn:
        for path in ["src/app.py", "plans/active/plan.md"]:
            r = turn.intercept_tool_call("write", {"path": path, "content": "1. fix it"})
            if r["blocked"]:
                refused = refused or path == "src/app.py"
                result = json.dumps({"error": r["message"], "blocked_by_extension": True})
                print("write %s -> refused by %s: %s" % (path, r["blocked_by"], r["message"]))
            else:
                print("write %s -> runs with %s" % (path, json.dumps(r["value"])))
finally:
    shutil.rmtree(base, ignore_errors=True)
sys.exit(0 if refused else 1)
