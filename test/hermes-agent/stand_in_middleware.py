"""Hermes' middleware (0.17.0 and later) as the stand-in (stand_in.py) runs it, each rule from
the Hermes file and function named beside it; standard library only."""

import copy
import json
import logging
import types

# hermes_cli/middleware.py ``VALID_MIDDLEWARE``.
VALID_MIDDLEWARE = {"tool_request", "tool_execution", "llm_request", "llm_execution"}


def middleware_payload(kwargs):
    # hermes_cli/middleware.py ``middleware_payload``: both schema markers on every call.
    return {
        **kwargs,
        "telemetry_schema_version": "hermes.observer.v1",
        "middleware_schema_version": "hermes.middleware.v1",
    }


def apply_request_middleware(ctx, kind, key, payload, **context):
    """hermes_cli/middleware.py ``apply_llm_request_middleware`` / ``apply_tool_request_middleware``
    with plugins.py ``invoke_middleware``: the callbacks do not chain. Each gets the same copy of
    the payload (and ``original_<key>``); one that raises is logged and skipped; then the returns
    are walked in order and each ``{key: dict}`` replaces the payload, so the last valid one wins.
    What is not a dict, or has no dict under ``key``, is ignored."""
    callbacks = getattr(ctx, "middleware", {}).get(kind, [])
    if not callbacks:
        return payload
    original = copy.deepcopy(payload)
    current = copy.deepcopy(original)
    results = []
    for callback in callbacks:
        try:
            result = callback(**middleware_payload({**context, key: current, f"original_{key}": original}))
        except Exception as error:
            logging.warning("Middleware '%s' callback raised: %s", kind, error)
            continue
        if result is not None:
            results.append(result)
    for result in results:
        if isinstance(result, dict) and isinstance(result.get(key), dict):
            current = copy.deepcopy(result[key])
    return current


def run_execution_middleware(ctx, kind, key, payload, terminal, **context):
    """hermes_cli/middleware.py ``_run_execution_chain``: the callbacks nest in load order, the
    first outermost; each gets a single-use ``next_call`` (a second call raises). A callback that
    raises before calling it is skipped (the next one, or the real call, runs); one that raises
    after it keeps what it returned; an error from downstream reaches the caller unchanged."""
    callbacks = getattr(ctx, "middleware", {}).get(kind, [])

    class Downstream(Exception):
        def __init__(self, original):
            super().__init__(str(original))
            self.original = original

    def call_at(index, value):
        if index >= len(callbacks):
            return terminal(value)
        state = {"called": False, "ok": False, "result": None}

        def next_call(next_value=None):
            if state["called"]:
                raise RuntimeError("next_call() called more than once; downstream is single-use")
            state["called"] = True
            try:
                state["result"] = call_at(index + 1, value if next_value is None else next_value)
                state["ok"] = True
                return state["result"]
            except Exception as error:
                raise Downstream(error) from error

        try:
            return callbacks[index](**middleware_payload({**context, key: value, "next_call": next_call}))
        except Downstream as error:
            raise error.original
        except Exception as error:
            logging.warning("Middleware '%s' callback raised: %s", kind, error)
            if state["ok"]:
                return state["result"]
            if state["called"]:
                raise
            return call_at(index + 1, value)

    return call_at(0, payload)


def model_response(api_mode, text):
    """A model's answer of ``text``, as the provider SDK's objects Hermes reads by attribute."""
    ns = types.SimpleNamespace
    if api_mode == "anthropic_messages":
        return ns(type="message", role="assistant", stop_reason="end_turn",
                  content=[ns(type="text", text=text)])
    if api_mode == "codex_responses":
        return ns(status="completed", output=[ns(type="message", role="assistant", status="completed",
                                                 content=[ns(type="output_text", text=text)])])
    return ns(choices=[ns(index=0, finish_reason="stop",
                          message=ns(role="assistant", content=text, tool_calls=None))])


def read_response(api_mode, response):
    """Whether Hermes takes the response (agent/transports/*.py ``validate_response``), and the
    answer's text and tool calls as its ``normalize_response`` reads them."""
    if api_mode == "anthropic_messages":
        blocks = getattr(response, "content", None)
        valid = isinstance(blocks, list) and (
            bool(blocks) or getattr(response, "stop_reason", None) in {"end_turn", "refusal"})
        blocks = blocks if valid else []
        text = "\n".join(b.text for b in blocks if b.type == "text")
        calls = [b.name for b in blocks if b.type == "tool_use"]
    elif api_mode == "codex_responses":
        output = getattr(response, "output", None)
        valid = isinstance(output, list) and bool(output)
        items = output if valid else []
        text = "".join(part.text for item in items if item.type == "message"
                       for part in item.content if part.type == "output_text")
        calls = [item.name for item in items if item.type == "function_call"]
    else:
        choices = getattr(response, "choices", None)
        valid = bool(choices)
        message = choices[0].message if valid else None
        text = message.content if valid else None
        calls = [c.function.name for c in (message.tool_calls or [])] if valid else []
    return {"valid": valid, "text": text, "tool_calls": calls}


def llm_step(ctx, step):
    """One model request in Hermes' order (agent/conversation_loop.py in 0.19;
    agent/turn_api_request.py ``build_api_request`` and agent/turn_api_call.py
    ``perform_api_call`` later): the request middleware may replace the built request, then the
    execution middleware wraps the model call, whose return Hermes takes as the model's response.
    ``sent`` is what reached the model: nothing when a middleware answered instead."""
    context = dict(step.get("kwargs") or {})
    api_mode = context.setdefault("api_mode", "chat_completions")
    original = copy.deepcopy(step["request"])
    request = apply_request_middleware(ctx, "llm_request", "request", step["request"], **context)
    sent = []

    def model(next_request):
        sent.append(json.loads(json.dumps(next_request, default=str)))
        return model_response(api_mode, "model answer")

    response = run_execution_middleware(
        ctx, "llm_execution", "request", request, model, original_request=original, **context)
    return {"llm": api_mode, "sent": sent, **read_response(api_mode, response)}
