"""Hermes' tool path for the stand-in (stand_in.py): one tool call from request to result, through
the tool middleware as stand_in_middleware.py runs it, each rule from the Hermes file and function
it names."""

import json
import os
import subprocess

from stand_in_middleware import apply_request_middleware, run_execution_middleware


# Tools the agent loop runs itself (agent/tool_executor.py ``execute_tool_calls_sequential``):
# they never reach model_tools.py ``handle_function_call``, so no ``transform_tool_result``.
AGENT_LOOP_TOOLS = {"delegate_task", "todo", "memory", "session_search", "clarify", "read_terminal"}


def observer_status(result):
    """model_tools.py ``_tool_result_observer_fields``: a JSON object with an ``error`` is one."""
    try:
        parsed = json.loads(result) if isinstance(result, str) else result
        if isinstance(parsed, dict) and parsed.get("error"):
            return "error", "tool_error", str(parsed["error"])
    except ValueError:
        pass
    return "ok", None, None


def run_tool(ctx, call, invoke_hook, tool_call_directive, takes_modify):
    """One tool call as Hermes 0.19.0 runs it (agent/tool_executor.py
    ``execute_tool_calls_sequential``, model_tools.py ``handle_function_call``), with the stand-in's
    ``invoke_hook`` and ``tool_call_directive``: ``tool_request``
    middleware, then ``pre_tool_call`` (``resolve_pre_tool_block``: a block refuses, an approve
    asks the person — ``call["approve"]`` answers — and a refusal is followed by
    ``post_tool_call`` with ``status="blocked", error_type="plugin_block"`` and nothing else);
    otherwise the tool inside ``tool_execution`` middleware, ``post_tool_call`` with its result,
    and ``transform_tool_result`` (first string wins) unless the agent loop runs the tool itself.
    The tool: ``terminal`` runs ``command`` with bash in ``call["terminal_cwd"]`` (where an
    earlier ``cd`` left Hermes' terminal; else here), any other returns ``call["result"]``."""
    name = call["name"]
    ids = {key: call.get(key, "") for key in ("task_id", "session_id", "tool_call_id", "turn_id")}
    ids["api_request_id"] = ""
    # hermes_cli/middleware.py ``apply_tool_request_middleware``.
    args = apply_request_middleware(ctx, "tool_request", "args", call.get("args") or {},
                                    tool_name=name, **ids)
    record = {"tool": name, "ran_with": None}
    directive = tool_call_directive(
        invoke_hook(ctx, "pre_tool_call", {"tool_name": name, "args": args, **ids,
                                           "middleware_trace": []}), args)
    record["directive"] = directive
    block = directive["message"] if directive["action"] == "block" else None
    # tools/approval.py ``_run_approval_gate``: in yolo mode (--yolo, hermes -z) every call is
    # approved without asking anyone; otherwise the person answers.
    yolo = os.environ.get("HERMES_YOLO_MODE", "").strip().lower() in {"1", "true", "yes", "on"}
    if directive["action"] == "approve" and not (yolo or call.get("approve")):
        block = f"BLOCKED: plugin approval required for {name}"
    if block is not None:
        result = json.dumps({"error": block}, ensure_ascii=False)
        invoke_hook(ctx, "post_tool_call", {
            "tool_name": name, "args": args, "result": result, **ids, "duration_ms": 0,
            "status": "blocked", "error_type": "plugin_block", "error_message": block,
            "middleware_trace": []})
        return {**record, "model_gets": result}
    # A modify: 0.19.0's hermes_cli/plugins.py ``_get_pre_tool_call_directive_details`` knows
    # block and approve only, so a Hermes with middleware here ignores it (``takes_modify``
    # false); the releases before and after that merge it (``tool_call_directive``).
    if directive.get("args") and takes_modify:
        args = directive["args"]

    def run(ran_with):
        record["ran_with"] = ran_with
        if name == "terminal":
            done = subprocess.run(["bash", "-c", ran_with.get("command", "")],
                                  cwd=call.get("terminal_cwd") or None, capture_output=True,
                                  text=True, timeout=30)
            return json.dumps({"output": done.stdout + done.stderr, "exit_code": done.returncode})
        return call.get("result", "")

    # hermes_cli/middleware.py ``run_tool_execution_middleware``.
    result = run_execution_middleware(ctx, "tool_execution", "args", args, run, tool_name=name,
                                      original_args=args, **ids)
    status, error_type, error_message = observer_status(result)
    fields = {"tool_name": name, "args": args, "result": result, **ids, "duration_ms": 3}
    invoke_hook(ctx, "post_tool_call", {**fields, "middleware_trace": []})
    if name not in AGENT_LOOP_TOOLS and ctx.hooks.get("transform_tool_result"):
        returned = invoke_hook(ctx, "transform_tool_result", {
            **fields, "status": status, "error_type": error_type, "error_message": error_message})
        result = next((r for r in returned if isinstance(r, str)), result)
    return {**record, "model_gets": result}
