"""Which agent made a tool call. Hermes runs a subagent in its own process as a child agent with
a session of its own and ``platform="subagent"`` (tools/delegate_tool.py ``_build_child_agent``);
``subagent_start`` names the child's session beside the parent's session and turn. A child's tool
calls are judged in the turn that started it, with its identity as the bridge's ``agent``
(docs/bridge.md), as this package's other hosts do (src/hooks/agent-identity.ts): a plan read, a
budget counted, a guard's state follow the subagent, and handlers can tell its calls apart."""

import threading
from collections import OrderedDict

# Children remembered, at most this many (the oldest is forgotten first).
MAX_CHILDREN = 256


class Agents:
    def __init__(self):
        self._lock = threading.Lock()
        self._children = OrderedDict()

    def subagent_start(self, **kwargs):
        """Hermes' ``subagent_start``: remembers the child's session, its parent's and its identity."""
        child = kwargs.get("child_session_id")
        if not child:
            return None
        identity = {"id": str(kwargs.get("child_subagent_id") or child)}
        if kwargs.get("child_role"):
            identity["type"] = str(kwargs["child_role"])
        if kwargs.get("parent_subagent_id"):
            identity["parent"] = str(kwargs["parent_subagent_id"])
        parent = (str(kwargs.get("parent_session_id") or ""), str(kwargs.get("parent_turn_id") or ""))
        with self._lock:
            self._children[str(child)] = (parent, identity)
            while len(self._children) > MAX_CHILDREN:
                self._children.popitem(last=False)
        return None

    def told(self, session, kwargs):
        """An observer event's fields with the subagent's ``agent_id`` and ``agent_type`` when a
        child made the call (docs/observing.md, Subagents); the main agent's as they are."""
        with self._lock:
            child = self._children.get(session)
        if child is None:
            return kwargs
        identity = child[1]
        extra = {"agent_id": identity["id"]}
        if "type" in identity:
            extra["agent_type"] = identity["type"]
        return {**kwargs, **extra}

    def turn(self, bridge, session, kwargs):
        """The turn a tool call of ``session`` is judged in, and the agent that made it (None for
        the main agent)."""
        with self._lock:
            child = self._children.get(session)
        if child is not None:
            (parent_session, parent_turn), identity = child
            turn = bridge.open_turn(parent_session, parent_turn or None) if parent_session else None
            if turn is not None:
                return turn, dict(identity)
        turn = bridge.current(session, kwargs.get("turn_id") or None, kwargs.get("platform"))
        if child is not None:
            return turn, dict(child[1])
        if "subagent" in (turn.platform, kwargs.get("platform")):
            # A child whose start was not seen: its own session names it.
            return turn, {"id": session}
        return turn, None
