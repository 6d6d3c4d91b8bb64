"""What ``tool_request`` decided on a call, kept for the ``pre_tool_call`` Hermes runs next for
the same ``tool_call_id`` (agent/tool_executor.py ``execute_tool_calls_sequential`` and
``execute_tool_calls_concurrent``: request middleware, then the hook): the chain runs once per
call, its rewrite goes through ``tool_request`` and its block through ``pre_tool_call``, which
Hermes turns into a refusal (and, from the releases with hermes_cli/plugins_dispatch.py, fails
closed)."""

import json
import threading
from collections import OrderedDict

# Decisions waiting for their pre_tool_call, at most this many (a call Hermes never got to is dropped).
MAX_PENDING = 256


def call_key(session, kwargs, args):
    """The call a decision is for: its ``tool_call_id`` in ``session``; a call without one (a
    caller outside the agent loop) by the arguments ``pre_tool_call`` will get, ``args``."""
    call_id = kwargs.get("tool_call_id")
    if call_id:
        return (session, str(call_id))
    return (session, None, json.dumps(args, sort_keys=True, default=str))


class Decision:
    """``args``: what the call runs with; ``block``: the directive refusing it, or None; ``ask``:
    the approval to ask for, or None."""

    __slots__ = ("args", "block", "ask")

    def __init__(self, args, block=None, ask=None):
        self.args = args
        self.block = block
        self.ask = ask


class Handoff:
    def __init__(self):
        self._lock = threading.Lock()
        self._decisions = OrderedDict()
        self._blocked = OrderedDict()
        self._rewrites = OrderedDict()

    def put(self, key, decision):
        with self._lock:
            self._decisions[key] = decision
            if decision.block is not None:
                self._blocked[key] = True
            for kept in (self._decisions, self._blocked):
                while len(kept) > MAX_PENDING:
                    kept.popitem(last=False)

    def take(self, key):
        with self._lock:
            return self._decisions.pop(key, None)

    def put_rewrite(self, key, args):
        """Arguments ``pre_tool_call`` rewrote a call to, for ``tool_execution`` to run it with:
        Hermes 0.19.0 has no ``modify`` (hermes_cli/plugins.py
        ``_get_pre_tool_call_directive_details``), and its ``tool_execution`` runs after
        ``pre_tool_call``, its ``next_call`` taking the arguments the tool runs with."""
        with self._lock:
            self._rewrites[key] = args
            while len(self._rewrites) > MAX_PENDING:
                self._rewrites.popitem(last=False)

    def take_rewrite(self, key):
        with self._lock:
            return self._rewrites.pop(key, None)

    def refused(self, key):
        """Whether this plugin refused the call (its result is the refusal, not a tool's)."""
        with self._lock:
            return key in self._blocked

    def mark_refused(self, key):
        with self._lock:
            self._blocked[key] = True
            while len(self._blocked) > MAX_PENDING:
                self._blocked.popitem(last=False)
