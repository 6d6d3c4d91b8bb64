"""Hermes' tool path for the stand-in (stand_in.py): its tool middleware and one tool call from
request to result, each rule from the Hermes file and function it names."""

import copy
import json
import logging
import subprocess


def middleware_payload(**kwargs):
    """What every middleware callback gets besides its own fields (hermes_cli/middleware.py
    ``middleware_payload``)."""
    return {**kwargs, "telemetry_schema_version": "hermes.observer.v1",
            "middleware_schema_version": "hermes.middleware.v1"}


def apply_tool_request(ctx, tool_name, args, ids):
    """hermes_cli/middleware.py ``apply_tool_request_middleware``: request middleware does not
    chain. Every callback gets the same arguments; of their returns, the last valid
    ``{"args": {...}}`` replaces them entirely; an exception or another return is ignored."""
    callbacks = getattr(ctx, "middleware", {}).get("tool_request", [])
    if not callbacks:
        return args
    original = copy.deepcopy(args)
    current = copy.deepcopy(args)
    returned = []
    for callback in callbacks:
        try:
            answer = callback(**middleware_payload(
                tool_name=tool_name, args=current, original_args=original, **ids))
        except Exception as error:
            logging.warning("Middleware 'tool_request' callback raised: %s", error)
            continue
        if answer is not None:
            returned.append(answer)
    for answer in returned:
        if isinstance(answer, dict) and isinstance(answer.get("args"), dict):
            current = copy.deepcopy(answer["args"])
    return current


class _Downstream(Exception):
    def __init__(self, original):
        super().__init__(str(original))
        self.original = original


def run_tool_execution(ctx, tool_name, args, run, ids):
    """hermes_cli/middleware.py ``run_tool_execution_middleware`` / ``_run_execution_chain``:
    callbacks nest in load order (the first is outermost) around ``run``; ``next_call`` may be
    called once; what ``run`` raises reaches Hermes unchanged; a callback that raises before
    ``next_call`` is skipped (the chain goes on: fail open), after a successful one its result
    stands."""
    callbacks = getattr(ctx, "middleware", {}).get("tool_execution", [])

    def call_at(index, payload):
        if index >= len(callbacks):
            return run(payload)
        state = {"called": False, "succeeded": False, "result": None}

        def next_call(next_payload=None):
            if state["called"]:
                raise RuntimeError("next_call() called more than once; downstream execution is single-use")
            state["called"] = True
            try:
                state["result"] = call_at(index + 1, payload if next_payload is None else next_payload)
            except Exception as error:
                raise _Downstream(error) from error
            state["succeeded"] = True
            return state["result"]

        try:
            return callbacks[index](**middleware_payload(
                tool_name=tool_name, args=payload, original_args=args, next_call=next_call, **ids))
        except _Downstream as error:
            raise error.original
        except Exception as error:
            logging.warning("Middleware 'tool_execution' callback raised: %s", error)
            if state["succeeded"]:
                return state["result"]
            if state["called"]:
                raise
            return call_at(index + 1, payload)

    return call_at(0, args)


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
    args = apply_tool_request(ctx, name, call.get("args") or {}, ids)
    record = {"tool": name, "ran_with": None}
    directive = tool_call_directive(
        invoke_hook(ctx, "pre_tool_call", {"tool_name": name, "args": args, **ids,
                                           "middleware_trace": []}), args)
    record["directive"] = directive
    block = directive["message"] if directive["action"] == "block" else None
    if directive["action"] == "approve" and not call.get("approve"):
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

    result = run_tool_execution(ctx, name, args, run, ids)
    status, error_type, error_message = observer_status(result)
    fields = {"tool_name": name, "args": args, "result": result, **ids, "duration_ms": 3}
    invoke_hook(ctx, "post_tool_call", {**fields, "middleware_trace": []})
    if name not in AGENT_LOOP_TOOLS and ctx.hooks.get("transform_tool_result"):
        returned = invoke_hook(ctx, "transform_tool_result", {
            **fields, "status": status, "error_type": error_type, "error_message": error_message})
        result = next((r for r in returned if isinstance(r, str)), result)
    return {**record, "model_gets": result}
