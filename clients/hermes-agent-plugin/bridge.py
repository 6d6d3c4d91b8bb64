"""One bridge process (``hermes extensions serve --stdio``) per Hermes process, and the turns
open in it.

The bridge starts at the first hook that needs it, is reused by every later one, and is closed
when the process exits. A bridge that has exited is started again at the next hook. The turns
that were open in it lost their state (what their extensions counted or were told), so they are
not judged afresh: their remaining tool calls are refused, and the session's next user turn
starts clean. Hermes runs hook
callbacks on worker threads and tool calls in parallel: the bookkeeping is under one lock, and
chain calls run outside it (the client interleaves calls of several threads on one process).
"""

import atexit
import logging
import os
import threading

from . import locate

logger = logging.getLogger(__name__)

# The bridge's name for Hermes' tool calls (docs/bridge.md, initialize).
TOOL_DIALECT = "hermes-agent"


def session_key(kwargs):
    """The bridge's session id: Hermes' session, else its task, else one for the process."""
    return str(kwargs.get("session_id") or kwargs.get("task_id") or "hermes-agent")


class Unavailable(Exception):
    """The bridge could not be started or did not answer; the message says what failed."""


class Turn:
    """A Hermes turn as the bridge knows it. ``refused`` is why every tool call of the turn is
    refused (its request was blocked or could not be checked, or its bridge exited); None while
    it is not. ``bridge_id`` is None for a turn that is no longer (or never was) in a bridge."""

    __slots__ = ("bridge_id", "hermes_id", "refused", "platform")

    def __init__(self, bridge_id, hermes_id, refused=None, platform=None):
        self.bridge_id = bridge_id
        self.hermes_id = hermes_id
        self.refused = refused
        # Hermes' platform for the turn: "subagent" for a child agent's (tools/delegate_tool.py).
        self.platform = platform


class Bridge:
    def __init__(self):
        self._lock = threading.RLock()
        self._client = None
        self._turns = {}
        # The folder the chains judge paths against: the bridge's own (--cwd), Hermes' at start.
        self.cwd = None
        atexit.register(self.close)

    # -- the process ---------------------------------------------------------------------------

    def client(self):
        """The running bridge's client, started now if there is none (raises Unavailable)."""
        with self._lock:
            if self._client is not None and self._client._process.poll() is None:
                return self._client
            if self._client is not None:
                self._lost()
            try:
                module = locate.client_module()
                self.cwd = os.getcwd()
                # Hermes' tools as extensions see them under its shell hooks too (`bash`, `write`…):
                # the bridge maps each call, and the answer back (src/host/hermes-agent-tools.ts).
                self._client = module.HermesExtensions(
                    command=locate.bridge_command(), cwd=self.cwd, tool_dialect=TOOL_DIALECT
                )
            except locate.NotFound as error:
                raise Unavailable(str(error))
            except Exception as error:  # an OSError starting it, a BridgeError from initialize
                raise Unavailable(f"the hermes-extensions bridge did not start: {error}")
            return self._client

    def has_hook(self, hook):
        """Whether the bridge's runtime has a handler for ``hook`` (from its ``initialize``)."""
        return bool(((self.client().info or {}).get("hooks") or {}).get(hook))

    def call(self, method, params):
        client = self.client()
        try:
            return client.call(method, params)
        except Exception as error:
            with self._lock:
                if self._client is client and client._process.poll() is not None:
                    # It died under this call (not before it, which client() sees): told as the
                    # same loss, whichever side noticed it first.
                    raise Unavailable(self._lost())
            raise Unavailable(f"the hermes-extensions bridge answered {method} with: {error}")

    def _lost(self):
        """The bridge has exited: its open turns' remaining calls are refused; says why."""
        # How it ended and what it said last (the extension it blamed, if any).
        why = self._client.exit_reason()
        logger.warning("hermes-extensions: %s; starting it again", why)
        self._client = None
        refusal = (
            f"[hermes-extensions] the bridge exited during this turn ({why}), "
            "so its checks lost their state and its remaining tool calls are "
            "refused; the next message starts a new turn"
        )
        for turn in self._turns.values():
            if turn.refused is None:
                turn.refused = refusal
            turn.bridge_id = None
        return refusal

    def close(self):
        with self._lock:
            client, self._client = self._client, None
            self._turns.clear()
        if client is not None:
            try:
                client.close()
            except Exception as error:
                logger.warning("hermes-extensions: closing the bridge: %s", error)

    # -- turns ---------------------------------------------------------------------------------

    def begin(self, session, hermes_turn_id, platform):
        """Ends the session's open turn, if any, and starts one for ``hermes_turn_id``."""
        with self._lock:
            self.end(session)
            params = {"session_id": session, "platform": platform or "cli"}
            if hermes_turn_id:
                params["turn_id"] = str(hermes_turn_id)
            started = self.call("turn/start", params)
            turn = Turn(started["turn_id"], hermes_turn_id, platform=platform)
            self._turns[session] = turn
            return turn

    def refuse_unchecked(self, session, hermes_turn_id, reason):
        """Records a turn that could not be started or checked: its tool calls are refused."""
        with self._lock:
            self._turns[session] = Turn(None, hermes_turn_id, refused=reason)

    def current(self, session, hermes_turn_id, platform):
        """The session's open turn for ``hermes_turn_id``; a new one when the session has none in
        this bridge, or Hermes names another turn (a tool call outside any ``pre_llm_call``)."""
        with self._lock:
            turn = self._turns.get(session)
            same = turn is not None and (
                not hermes_turn_id or not turn.hermes_id or turn.hermes_id == hermes_turn_id
            )
            if not same:
                return self.begin(session, hermes_turn_id, platform)
            if turn.bridge_id is not None and not self._client_alive():
                # Its bridge exited: noticing it refuses the turn (and starts a new bridge).
                self.client()
            return turn

    def open_turn(self, session, hermes_turn_id):
        """The session's open turn if it is ``hermes_turn_id``'s (any, when that is None); None
        when there is none. Never starts one."""
        with self._lock:
            turn = self._turns.get(session)
            if turn is None or (hermes_turn_id and turn.hermes_id and turn.hermes_id != hermes_turn_id):
                return None
            if turn.bridge_id is not None and not self._client_alive():
                self.client()  # its bridge exited: noticing it refuses the turn
            return turn

    def end(self, session, hermes_turn_id=None):
        """Ends the session's open turn (only if it is ``hermes_turn_id``'s, when that is given)."""
        with self._lock:
            turn = self._turns.get(session)
            if turn is None or (hermes_turn_id and turn.hermes_id and turn.hermes_id != hermes_turn_id):
                return
            del self._turns[session]
            if turn.bridge_id is None or not self._client_alive():
                return
        try:
            self.call("turn/end", {"turn_id": turn.bridge_id})
        except Unavailable as error:
            logger.warning("hermes-extensions: ending turn %s: %s", turn.bridge_id, error)

    def _client_alive(self):
        return self._client is not None and self._client._process.poll() is None
