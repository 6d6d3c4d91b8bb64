"""Per-call latency of intercept_tool_call over the stdio bridge, from the shipped Python client
(the host the bridge is for). Run by bench/bridge.mjs:
    bridge_client.py SERVER_COMMAND_JSON PROJECT_DIR   (HERMES_HOME, BENCH_* in the environment)
Prints {"first": [...], "steady": [...]}: the first BENCH_FIRST calls after the server starts and
BENCH_CALLS calls after BENCH_WARMUP, in milliseconds."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
from hermes_extensions_client import HermesExtensions  # noqa: E402

command, project = json.loads(sys.argv[1]), sys.argv[2]
first_n = int(os.environ.get("BENCH_FIRST", "1000"))
warmup = int(os.environ.get("BENCH_WARMUP", "5000"))
calls = int(os.environ.get("BENCH_BRIDGE_CALLS", "2000"))
args = {"path": "src/app.ts", "content": "x"}

first, steady = [], []
with HermesExtensions(command=command, cwd=project) as hooks:
    with hooks.turn(session_id="bench-python") as turn:
        for i in range(warmup + calls):
            started = time.perf_counter()
            outcome = turn.intercept_tool_call("write", args)
            elapsed = (time.perf_counter() - started) * 1000
            if not outcome["blocked"]:
                raise SystemExit("expected workflow-guard to block: %r" % (outcome,))
            if i < first_n:
                first.append(elapsed)
            if i >= warmup:
                steady.append(elapsed)
print(json.dumps({"first": first, "steady": steady}))
