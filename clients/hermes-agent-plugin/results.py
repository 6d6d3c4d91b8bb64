"""A tool's result, checked by ``transform_tool_result`` before the model reads it (hooks.py
registers the hooks, tool_middleware.py the middleware that calls ``checked``).

- ``transform_tool_result`` runs the chain of that name over what a tool returned: a rewrite
  replaces it, a block puts a refusal in its place. Hermes calls ``post_tool_call`` first, with
  the tool's own result: the chain runs there already, so observers are told the result the
  model gets (a redaction keeps a secret out of telemetry too), and ``transform_tool_result``
  hands on that outcome. Where Hermes has middleware, ``tool_execution`` runs the chain instead,
  over every tool, and neither hook runs it. A refused call's ``post_tool_call`` is only told:
  Hermes runs no tool and no ``transform_tool_result``.

Fail closed: a result whose check failed or did not answer in time is withheld (the model gets a
refusal that says why).
"""

import threading
from collections import OrderedDict

from . import bounded, directives
from .bridge import session_key

# Results decided at post_tool_call and waiting for transform_tool_result, at most this many.
MAX_PENDING_RESULTS = 256


class ToolResults:
    def __init__(self, hooks):
        self.hooks = hooks
        self._lock = threading.Lock()
        self._results = OrderedDict()
        # Set when tool_execution checks results (tool_middleware.py): post_tool_call only tells.
        self.by_middleware = False

    def post_tool_call(self, **kwargs):
        """Observers get the result the model will get: the chain runs here, and its answer is
        kept for the ``transform_tool_result`` Hermes calls next with the same result. A refused
        call (Hermes' ``status="blocked"``) and, under middleware, every call (``tool_execution``
        checked its result already) are told as they are: each call is reported once, and a
        refusal is no tool's result to check."""
        hooks = self.hooks
        if kwargs.get("status") == "blocked" or self.by_middleware:
            hooks.tell("post_tool_call", hooks.agents.told(session_key(kwargs), kwargs))
            return
        result = kwargs.get("result")
        answer = self.checked(kwargs)
        with self._lock:
            self._results[hooks.ask_key(kwargs)] = ((kwargs.get("tool_name"), result), answer)
            while len(self._results) > MAX_PENDING_RESULTS:
                self._results.popitem(last=False)
        told = {**kwargs, "result": result if answer is None else answer}
        hooks.tell("post_tool_call", hooks.agents.told(session_key(kwargs), told))

    def transform_tool_result(self, **kwargs):
        """The string that replaces the tool's result, or None to keep it. Never raises: Hermes
        keeps the result when a callback fails, so every failure returns the refusal instead."""
        with self._lock:
            kept = self._results.pop(self.hooks.ask_key(kwargs), None)
        # Decided at post_tool_call for this very result; a result changed since is checked anew.
        if kept is not None and kept[0] == (kwargs.get("tool_name"), kwargs.get("result")):
            return kept[1]
        return self.checked(kwargs)

    def checked(self, kwargs, seconds=None):
        """The string that replaces the result, None to keep it, or the refusal when it could
        not be checked in time: Hermes stops waiting for this hook after its
        ``plugins.hook_callback_timeout`` and then hands the model the tool's own result, so
        the plugin answers first. ``seconds`` bounds the wait instead (middleware has no limit
        of Hermes' own)."""
        deadline = bounded.hook_deadline() if seconds is None else seconds
        box = {}

        def check():
            try:
                box["answer"] = self._check(kwargs)
            except Exception as error:  # Unavailable, or an answer this plugin cannot read
                box["answer"] = directives.unchecked_result(error)

        if deadline is None:
            check()
            return box["answer"]
        worker = threading.Thread(target=check, name="hermes-extensions-result", daemon=True)
        worker.start()
        worker.join(deadline)
        if worker.is_alive():
            return directives.unchecked_result(
                f"the extensions did not answer within {deadline:g} s, before Hermes stops "
                "waiting for this hook (plugins.hook_callback_timeout)"
            )
        return box["answer"]

    def _check(self, kwargs):
        bridge = self.hooks.bridge
        args = kwargs.get("args")
        turn, agent = self.hooks.agents.turn(bridge, session_key(kwargs), kwargs)
        if turn.refused is not None:
            # The turn's checks are gone (or it was refused): nothing of it reaches the model.
            return directives.refused_result(turn.refused)
        if not bridge.has_hook("transform_tool_result"):
            return None
        params = {
            "turn_id": turn.bridge_id,
            "tool_name": str(kwargs.get("tool_name") or ""),
            "tool_args": directives.json_data(args) if isinstance(args, dict) else {},
            "result": directives.wire_result(kwargs.get("result")),
            "is_error": kwargs.get("status") == "error",
        }
        for key in ("tool_call_id", "task_id"):
            if kwargs.get(key):
                params[key] = str(kwargs[key])
        if agent is not None:
            params["agent"] = agent
        return directives.result_text(bridge.call("transform_tool_result", params))
