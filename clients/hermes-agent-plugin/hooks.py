"""The Hermes agent's hook points as this package's chains and observer events.

- ``pre_llm_call`` (once per user turn) starts the turn and runs ``transform_user_input`` and
  ``before_llm_call``. Hermes cannot be told to refuse a turn there, so a block is held for the
  whole turn instead: the model is told the request was refused and why, and every
  ``pre_tool_call`` of the turn is blocked. A rewritten request, and what ``before_llm_call``
  injects, go to the model as context on the user's message (the only thing Hermes lets a
  plugin add).
- ``pre_tool_call`` runs ``intercept_tool_call``: a block, a modify, or, through the second
  callback, an approve that makes Hermes ask the person; an allowed ``terminal`` command is put
  in the folder it was judged in (terminal.py). Where Hermes has middleware, ``tool_request``
  ran the chain already (tool_middleware.py) and ``pre_tool_call`` gives its block or ask.
- ``post_tool_call`` and ``transform_tool_result``: the tool's result (results.py).
- ``post_llm_call`` and ``on_session_end`` end the turn; the observer hooks are told to the
  bridge's ``event`` method while someone listens.

Fail closed: when the bridge cannot start or answers an error, a tool call is blocked with what
failed and what to do, and a tool's result is withheld (the model gets a refusal that says why);
every other hook logs a warning and lets Hermes go on.
"""

import logging
import threading
from collections import OrderedDict

from . import approvals, directives, terminal
from .agents import Agents
from .bridge import Bridge, Unavailable, session_key
from .handoff import Handoff, call_key
from .results import ToolResults

logger = logging.getLogger(__name__)

# The observer events the bridge takes (docs/observing.md) that Hermes reports to plugins.
OBSERVED = (
    "on_session_start",
    "pre_api_request",
    "post_api_request",
    "api_request_error",
    "pre_approval_request",
    "post_approval_response",
    "subagent_start",
    "subagent_stop",
)

# Left out of every event told: the whole conversation, the largest fields there are, which this
# package's own hosts do not put in events either (docs/observing.md).
UNTOLD_FIELDS = ("telemetry_schema_version", "conversation_history", "request_messages")

# Asks waiting for the approval callback, at most this many (a call Hermes never got to is dropped).
MAX_PENDING_ASKS = 256

class Hooks:
    def __init__(self, bridge=None):
        self.bridge = bridge or Bridge()
        self._asks = OrderedDict()
        self._asks_lock = threading.Lock()
        self.handoff = Handoff()
        self.agents = Agents()
        self.results = ToolResults(self)
        self._untold = set()
        self._warned = set()

    # -- a turn starts ----------------------------------------------------------------------

    def pre_llm_call(self, **kwargs):
        session = session_key(kwargs)
        turn_id = kwargs.get("turn_id") or None
        self.tell("pre_llm_call", kwargs)
        turn = None
        try:
            turn = self.bridge.begin(session, turn_id, kwargs.get("platform"))
            context = self._check_request(turn, kwargs)
        except Exception as error:  # Unavailable, or a fault here: Hermes would let the turn run
            self._warn(f"pre_llm_call: {error}")
            reason = directives.unchecked_reason(error)
            if turn is not None:
                turn.refused = reason
            else:
                self.bridge.refuse_unchecked(session, turn_id, reason)
            return None
        return {"context": "\n\n".join(context)} if context else None

    def _check_request(self, turn, kwargs):
        """Runs the turn's input chains; the context to add to the user's message."""
        context = []
        user_message = kwargs.get("user_message")
        text = directives.message_text(user_message)
        if text is not None and self.bridge.has_hook("transform_user_input"):
            outcome = self.bridge.call(
                "transform_user_input", {"turn_id": turn.bridge_id, "user_message": text}
            )
            if outcome.get("blocked"):
                return self._refuse(turn, outcome)
            if outcome.get("changed"):
                text = outcome.get("value")
                context.append(directives.rewritten_input_context(outcome))
        if self.bridge.has_hook("before_llm_call"):
            sent = directives.wire_messages(kwargs.get("conversation_history"))
            last = sent[-1] if sent else None
            # The history may hold this turn's message already; the request carries it as
            # transform_user_input left it.
            original = directives.message_text(user_message)
            if last and last["role"] == "user" and last["content"] == original:
                last["content"] = text if text is not None else original
            elif text is not None:
                sent.append({"role": "user", "content": text})
            params = {
                "turn_id": turn.bridge_id,
                "system_prompt": "",
                "messages": sent,
                "iteration": 0,
            }
            if kwargs.get("model"):
                params["model"] = str(kwargs["model"])
            outcome = self.bridge.call("before_llm_call", params)
            if outcome.get("blocked"):
                return self._refuse(turn, outcome)
            if outcome.get("changed"):
                context.extend(directives.request_context(sent, outcome, self._warn))
        return context

    def _refuse(self, turn, outcome):
        turn.refused = outcome.get("message") or "refused by hermes-extensions"
        return [directives.refused_context(outcome)]

    # -- tool calls ---------------------------------------------------------------------------

    def pre_tool_call(self, **kwargs):
        """The decision on one tool call; an ask is kept for ``pre_tool_call_approval``. A call
        ``tool_request`` judged already (Hermes with middleware) gets that decision: the chain
        runs once per call (handoff.py)."""
        args = kwargs.get("args")
        self.tell("pre_tool_call", self.agents.told(session_key(kwargs), kwargs))
        call = call_key(session_key(kwargs), kwargs, args)
        handed = self.handoff.take(call)
        # Judged as it now is: another plugin's tool_request may have replaced the arguments since.
        if handed is not None and handed.args == args:
            if handed.block is None and handed.ask is not None:
                self._keep_ask(kwargs, handed.ask)
            return handed.block
        outcome = {}
        try:
            outcome = self.judge_tool_call(kwargs)
            directive = directives.tool_call_directive(outcome, args)
            if directive is None or directive["action"] == "modify":
                runs = args if directive is None else directive["args"]
                wrapped = terminal.pinned(kwargs.get("tool_name"), runs, self.bridge.cwd)
                if wrapped is not runs:
                    directive = {"action": "modify", "args": wrapped}
        except Exception as error:  # Unavailable, or an answer this plugin cannot read
            directive = directives.unchecked_call(error)
        if directive is not None and directive["action"] == "block":
            self.handoff.mark_refused(call)
            return directive
        if directive is not None and self.results.by_middleware:
            # A modify, where Hermes may not take one: tool_execution runs the call with it.
            self.handoff.put_rewrite(call, directive["args"])
        if outcome.get("ask"):
            self._keep_ask(kwargs, outcome["ask"])
        return directive

    def judge_tool_call(self, kwargs, deadline_ms=None):
        """``intercept_tool_call``'s outcome for a call (a refusal when its turn is refused or its
        arguments are no object). Raises when the bridge cannot answer."""
        args = kwargs.get("args")
        turn, agent = self.agents.turn(self.bridge, session_key(kwargs), kwargs)
        if turn.refused is not None:
            return {"blocked": True, "message": turn.refused}
        if not isinstance(args, dict):
            return {
                "blocked": True,
                "message": f"{directives.TAG} the call's arguments are not an object, so it cannot be checked",
            }
        if not self.bridge.has_hook("intercept_tool_call"):
            return {}
        params = {
            "turn_id": turn.bridge_id,
            "tool_name": str(kwargs.get("tool_name") or ""),
            "tool_args": directives.json_data(args),
        }
        for key in ("tool_call_id", "task_id"):
            if kwargs.get(key):
                params[key] = str(kwargs[key])
        if agent is not None:
            params["agent"] = agent
        if deadline_ms is not None:
            params["deadline_ms"] = deadline_ms
        outcome = self.bridge.call("intercept_tool_call", params)
        if not isinstance(outcome, dict):
            raise ValueError("the bridge answered intercept_tool_call with what is not an outcome")
        return outcome

    def pre_tool_call_approval(self, **kwargs):
        """Registered after ``pre_tool_call``: one callback returns one directive, and a call
        that is rewritten and asked about needs two (a modify, then an approve)."""
        ask = self._take_ask(kwargs)
        if ask is None:
            return None
        tool_name = str(kwargs.get("tool_name") or "")
        # Where Hermes' gate would approve it unasked, an ask refuses the call (approvals.py).
        unasked = approvals.unasked_reason()
        if unasked is not None:
            self.handoff.mark_refused(call_key(session_key(kwargs), kwargs, kwargs.get("args")))
            return directives.unasked_approval(ask, unasked)
        return directives.approval_directive(ask, tool_name)

    def ask_key(self, kwargs):
        call = kwargs.get("tool_call_id") or id(kwargs.get("args"))
        return (session_key(kwargs), call)

    def _keep_ask(self, kwargs, ask):
        with self._asks_lock:
            self._asks[self.ask_key(kwargs)] = ask
            while len(self._asks) > MAX_PENDING_ASKS:
                self._asks.popitem(last=False)

    def _take_ask(self, kwargs):
        with self._asks_lock:
            return self._asks.pop(self.ask_key(kwargs), None)

    # -- a turn ends ------------------------------------------------------------------------

    def post_llm_call(self, **kwargs):
        self.tell("post_llm_call", kwargs)
        self.bridge.end(session_key(kwargs), kwargs.get("turn_id") or None)

    def on_session_end(self, **kwargs):
        self.tell("on_session_end", kwargs)
        self.bridge.end(session_key(kwargs), kwargs.get("turn_id") or None)

    # -- observers ----------------------------------------------------------------------------

    def observer(self, event):
        def observe(**kwargs):
            self.tell(event, kwargs)

        observe.__name__ = f"hermes_extensions_{event}"
        return observe

    def tell(self, event, kwargs):
        """Passes an event to the bridge's observers; after one answer that nobody listens to
        it, the event is not sent again by this process (the bridge's extensions are loaded
        once)."""
        if event in self._untold:
            return
        fields = {k: v for k, v in kwargs.items() if k not in UNTOLD_FIELDS}
        try:
            answer = self.bridge.call("event", {**directives.json_data(fields), "event": event})
        except Unavailable as error:
            self._warn(f"{event}: observers were not told: {error}")
            return
        if not (answer or {}).get("delivered"):
            self._untold.add(event)

    def _warn(self, message):
        # Once per distinct message: a broken bridge would otherwise log at every event.
        if message not in self._warned:
            self._warned.add(message)
            logger.warning("hermes-extensions: %s", message)
