"""The tool side of Hermes' middleware (hermes_cli/middleware.py, v0.17.0 and later), registered
where Hermes has it (hermes_version.py); older versions keep the hooks alone (hooks.py).

- ``tool_request`` (``apply_tool_request_middleware``; agent/tool_executor.py runs it once per
  call, before ``pre_tool_call``, guardrails and approvals) runs ``intercept_tool_call``. Its
  ``{"args": …}`` replaces the arguments entirely, so a rewrite that drops an argument is applied
  as written; a ``terminal`` command is put in the folder it was judged in (terminal.py). A block
  or an ask is handed to ``pre_tool_call`` by ``tool_call_id`` (handoff.py): Hermes refuses the
  call there, reports it as ``status="blocked"``, and asks the person about an approve.
- ``tool_execution`` (``run_tool_execution_middleware``, which wraps the tool's run for every
  tool, ``delegate_task`` and the other agent-loop tools included) runs ``transform_tool_result``
  over what the tool returned: the model, and ``post_tool_call`` after it, get the rewritten
  result or a refusal in its place.

Hermes gives middleware no timeout and no fail-closed mode, and a callback that raises before
``next_call`` is skipped (``_run_execution_chain``): every callback here catches its own errors
and bounds its wait on the bridge (bounded.py). A call whose check failed or ran out of time is
refused at ``pre_tool_call``; a result whose check failed or ran out of time is withheld.
"""

from . import bounded, directives, terminal
from .handoff import Decision, call_key
from .bridge import session_key

def register(ctx, hooks):
    middleware = ToolMiddleware(hooks)
    ctx.register_middleware("tool_request", middleware.tool_request)
    ctx.register_middleware("tool_execution", middleware.tool_execution)
    hooks.results.by_middleware = True
    return middleware


class ToolMiddleware:
    def __init__(self, hooks):
        self.hooks = hooks

    def tool_request(self, tool_name="", args=None, **kwargs):
        """``{"args": …}`` when the chain rewrote the call (or pinned a terminal command), else
        None. Never raises: a failure is a block handed to ``pre_tool_call``."""
        call = {**kwargs, "tool_name": tool_name, "args": args}
        if not isinstance(args, dict):
            return None  # pre_tool_call refuses it, saying why
        seconds = bounded.deadline()
        try:
            # The bridge's chain ends a little before: its own refusal then says who ran.
            outcome = bounded.run(
                lambda: self.hooks.judge_tool_call(call, deadline_ms=int(seconds * 900)), seconds
            )
            decision = self._decision(tool_name, args, outcome)
        except Exception as error:  # Unavailable, TimedOut, an answer this plugin cannot read
            decision = Decision(args, block=directives.unchecked_call(error))
        # pre_tool_call gets the arguments this returns: a call without an id is found by them.
        self.hooks.handoff.put(call_key(session_key(call), call, decision.args), decision)
        if decision.block is not None or decision.args == args:
            return None
        return {"args": decision.args, "source": "hermes-extensions", "reason": "intercept_tool_call"}

    def _decision(self, tool_name, args, outcome):
        if outcome.get("blocked"):
            message = outcome.get("message") or "refused by hermes-extensions"
            return Decision(args, block=directives.block(message))
        runs = args
        if outcome.get("changed"):
            runs = outcome.get("value")
            if not isinstance(runs, dict):
                return Decision(
                    args,
                    block=directives.block(
                        f"{directives.TAG} the rewritten arguments are not an object, so the call is refused"
                    ),
                )
        runs = terminal.pinned(tool_name, runs, self.hooks.bridge.cwd)
        return Decision(runs, ask=outcome.get("ask") or None)

    def tool_execution(self, tool_name="", args=None, next_call=None, **kwargs):
        """The tool's result as the chain leaves it. What ``next_call`` raises goes on to Hermes as
        the tool's own failure; everything else is caught here."""
        call = {**kwargs, "tool_name": tool_name, "args": args}
        key = call_key(session_key(call), call, args)
        # pre_tool_call judged this call itself and rewrote it (handoff.py, put_rewrite).
        rewrite = self.hooks.handoff.take_rewrite(key)
        if rewrite is None:
            result = next_call()
        else:
            call["args"] = rewrite
            result = next_call(rewrite)
        if self.hooks.handoff.refused(key):
            # Later releases wrap pre_tool_call inside next_call: a call refused there ran no tool.
            return result
        try:
            call["result"] = result
            call["status"] = _status(result)
            answer = self.hooks.results.checked(call, bounded.deadline())
        except Exception as error:  # a fault of this plugin: the result is not handed on unchecked
            answer = directives.unchecked_result(error)
        return result if answer is None else answer


def _status(result):
    """Hermes' status for a result (model_tools.py ``_tool_result_observer_fields``): "error"
    for a JSON object with an ``error``, else "ok"."""
    parsed = directives.wire_result(result)
    return "error" if isinstance(parsed, dict) and parsed.get("error") else "ok"

