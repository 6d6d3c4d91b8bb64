"""The model side of a turn on a Hermes with middleware (0.17.0 and later, hermes_cli/middleware.py):

- ``pre_llm_call`` only starts the turn and keeps the user's message.
- ``llm_request`` (once per provider attempt, retries and fallbacks included) runs
  ``transform_user_input`` at the turn's first request, and ``before_llm_call`` at every request:
  the request Hermes sends is the one the chains left, in the ``api_mode``'s own shape
  (request_shapes.py). A rewritten user message replaces the user's text in every later request
  of the session too: Hermes keeps the original in its history and builds each request from it.
- ``llm_execution`` answers a request that was refused, or could not be checked, with the refusal
  as the model's answer, without calling the model; every other request goes to the model as
  checked (one changed since, by another plugin, is refused too).
- ``transform_llm_output`` runs ``transform_final_answer`` over the turn's answer.

Hermes gives middleware no time limit and takes an exception as "carry on unchanged"
(``_run_execution_chain``, ``invoke_middleware``), so nothing here raises: each wait on the
bridge is bounded, and what fails becomes a refusal, as data.
"""

import logging
import threading
from collections import OrderedDict

from . import bounded, directives, request_edits, request_shapes
from .bridge import session_key

logger = logging.getLogger(__name__)

# Per session: the original → rewritten user messages, at most this many each, and sessions kept.
MAX_REWRITES = 256
MAX_SESSIONS = 256
# Requests checked and not yet executed, at most this many.
MAX_PENDING = 256


class Verdict:
    """What ``llm_request`` decided for one request: its refusal, or what was checked."""

    __slots__ = ("refusal", "digest")

    def __init__(self, refusal=None, digest=None):
        self.refusal = refusal
        self.digest = digest


class LlmMiddleware:
    def __init__(self, hooks):
        self.hooks = hooks
        self.bridge = hooks.bridge
        self._lock = threading.Lock()
        self._inputs = OrderedDict()  # session → [hermes turn id, the user's message, checked?]
        self._rewrites = OrderedDict()  # session → OrderedDict(original → rewritten)
        self._verdicts = OrderedDict()  # (session, api_request_id) → Verdict

    # -- the turn starts ----------------------------------------------------------------------

    def pre_llm_call(self, **kwargs):
        """Starts the turn; its input is checked at its first model request, not here (Hermes
        bounds this hook's time, and cannot refuse a turn from it)."""
        session = session_key(kwargs)
        self.hooks.tell("pre_llm_call", kwargs)
        with self._lock:
            self._inputs[session] = [
                kwargs.get("turn_id") or None,
                directives.message_text(kwargs.get("user_message")),
                False,
            ]
            self._inputs.move_to_end(session)
            while len(self._inputs) > MAX_SESSIONS:
                self._inputs.popitem(last=False)
        try:
            self.bridge.begin(session, kwargs.get("turn_id") or None, kwargs.get("platform"))
        except Exception as error:  # the first request of the turn is refused, saying why
            self.hooks._warn(f"pre_llm_call: {error}")
        return None

    # -- each request ---------------------------------------------------------------------------

    def llm_request(self, **kwargs):
        """``{"request": …}`` for a request the chains changed; None to send it as it is."""
        api_mode = str(kwargs.get("api_mode") or "chat_completions")
        key = (session_key(kwargs), str(kwargs.get("api_request_id") or kwargs.get("turn_id") or ""))
        answer = checked(
            lambda deadline: self._check(kwargs, api_mode, deadline), "this request", bounded.deadline()
        )
        if isinstance(answer, str):
            verdict, request = Verdict(refusal=answer), None
            self._refuse_turn(kwargs, answer)
        else:
            verdict, request = answer
        with self._lock:
            self._verdicts[key] = verdict
            while len(self._verdicts) > MAX_PENDING:
                self._verdicts.popitem(last=False)
        if request is None:
            return None
        return {"request": request, "source": "hermes-extensions", "reason": "before_llm_call"}

    def _check(self, kwargs, api_mode, deadline):
        session = session_key(kwargs)
        request = kwargs.get("request")
        if not isinstance(request, dict):
            return f"{directives.TAG} Hermes passed no request to check, so it is not sent"
        turn = self.bridge.current(session, kwargs.get("turn_id") or None, kwargs.get("platform"))
        if turn.refused is not None:
            return turn.refused
        wants_input = self.bridge.has_hook("transform_user_input")
        wants_request = self.bridge.has_hook("before_llm_call")
        if not (wants_input or wants_request or self._session_rewrites(session)):
            return Verdict(digest=request_shapes.digest(request, api_mode)), None
        request_shapes.check_mode(api_mode)
        if wants_input:
            refusal = self._check_input(session, turn, kwargs, deadline)
            if refusal is not None:
                return refusal
        out, changed = request_edits.with_user_rewrites(
            request, api_mode, self._session_rewrites(session)
        )
        if wants_request:
            outcome_refusal, out, more = self._check_request(turn, out, api_mode, kwargs, deadline)
            if outcome_refusal is not None:
                return outcome_refusal
            changed = changed or more
        return Verdict(digest=request_shapes.digest(out, api_mode)), out if changed else None

    def _check_input(self, session, turn, kwargs, deadline):
        """Runs ``transform_user_input`` once per turn: the refusal, or None."""
        with self._lock:
            pending = self._inputs.get(session)
            hermes_turn = kwargs.get("turn_id") or None
            if pending is None or pending[2] or (hermes_turn and pending[0] and pending[0] != hermes_turn):
                return None
            pending[2] = True
            text = pending[1]
        if text is None:
            return None
        outcome = self.bridge.call(
            "transform_user_input",
            {"turn_id": turn.bridge_id, "user_message": text, **deadline_param(deadline)},
        )
        if outcome.get("blocked"):
            return refused_answer(outcome)
        value = outcome.get("value")
        rewritten = value if outcome.get("changed") and isinstance(value, str) else text
        with self._lock:
            # A message left as it was is kept too: a later one that begins with an earlier
            # rewritten text is then not taken for it (request_edits.py ``_rewritten``).
            rewrites = self._rewrites.setdefault(session, OrderedDict())
            self._rewrites.move_to_end(session)
            rewrites.pop(text, None)
            rewrites[text] = rewritten
            while len(rewrites) > MAX_REWRITES:
                rewrites.popitem(last=False)
            while len(self._rewrites) > MAX_SESSIONS:
                self._rewrites.popitem(last=False)
        return None

    def _check_request(self, turn, request, api_mode, kwargs, deadline):
        """Runs ``before_llm_call`` on the request: (refusal or None, request, changed)."""
        system, messages, owners = request_shapes.to_wire(request, api_mode)
        tools = request_shapes.tool_names(request, api_mode)
        params = {
            "turn_id": turn.bridge_id,
            "system_prompt": system,
            "messages": messages,
            # 0 for the turn's first request: Hermes counts its requests from 1.
            "iteration": max(0, int(kwargs.get("api_call_count") or 1) - 1),
            **deadline_param(deadline),
        }
        if tools is not None:
            params["tools"] = tools
        if kwargs.get("model"):
            params["model"] = str(kwargs["model"])
        if kwargs.get("platform") == "subagent":
            # A child agent (tools/delegate_task.py): its own session is the one it is known by.
            params["agent"] = {"id": session_key(kwargs)}
        outcome = self.bridge.call("before_llm_call", params)
        if outcome.get("blocked"):
            return refused_answer(outcome), request, False
        value = outcome.get("value")
        if not outcome.get("changed") or not isinstance(value, dict):
            return None, request, False
        out, changed = request_edits.apply(
            request, api_mode, (system, messages, owners, tools), value
        )
        return None, out, changed

    def _session_rewrites(self, session):
        with self._lock:
            return dict(self._rewrites.get(session) or {})

    def _refuse_turn(self, kwargs, reason):
        try:
            turn = self.bridge.current(
                session_key(kwargs), kwargs.get("turn_id") or None, kwargs.get("platform")
            )
            if turn.refused is None:
                turn.refused = reason
        except Exception as error:
            self.hooks._warn(f"llm_request: {error}")
            self.bridge.refuse_unchecked(session_key(kwargs), kwargs.get("turn_id") or None, reason)

    # -- each model call ------------------------------------------------------------------------

    def llm_execution(self, **kwargs):
        """The model's response: the model's own for a request that was checked, else the
        refusal in the ``api_mode``'s shape, without calling the model."""
        api_mode = str(kwargs.get("api_mode") or "chat_completions")
        request = kwargs.get("request")
        next_call = kwargs.get("next_call")
        try:
            key = (session_key(kwargs), str(kwargs.get("api_request_id") or kwargs.get("turn_id") or ""))
            with self._lock:
                verdict = self._verdicts.pop(key, None)
            if verdict is None:
                refusal = (
                    f"{directives.TAG} this model request was not checked (Hermes did not run "
                    "hermes-extensions' request middleware for it), so it is not sent"
                )
            elif verdict.refusal is not None:
                refusal = verdict.refusal
            elif not isinstance(request, dict) or request_shapes.digest(request, api_mode) != verdict.digest:
                refusal = (
                    f"{directives.TAG} this model request was changed after hermes-extensions "
                    "checked it (by another plugin's llm_request or llm_execution middleware), so "
                    "it is not sent; remove that plugin or the extensions that check requests"
                )
            else:
                refusal = None
        except Exception as error:  # nothing here may raise: Hermes would send the request
            refusal = f"{directives.TAG} could not check this model request, so it is not sent: {error}"
        if refusal is not None:
            logger.info("hermes-extensions: a model request was answered with a refusal")
            return request_shapes.refusal_response(api_mode, refusal, kwargs.get("model"))
        # Outside the try: the model's own errors are Hermes' to retry.
        return next_call(request)

    # -- the final answer -----------------------------------------------------------------------

    def transform_llm_output(self, **kwargs):
        """The text that replaces the turn's answer, or None to keep it. A subagent's answer goes
        to its parent's model, not to the user, so it is not gated (hooks/transform-final-answer.ts)."""
        text = kwargs.get("response_text")
        if kwargs.get("platform") == "subagent" or not isinstance(text, str) or not text:
            return None
        # A bounded hook: answered before Hermes stops waiting and keeps the answer unchecked.
        answer = checked(
            lambda deadline: self._check_answer(kwargs, text, deadline),
            "this answer",
            bounded.hook_deadline(),
        )
        return answer if answer != text else None

    def _check_answer(self, kwargs, text, deadline):
        turn = self.bridge.current(
            session_key(kwargs), kwargs.get("turn_id") or None, kwargs.get("platform")
        )
        if turn.refused is not None:
            # The refusal this plugin answered the turn with stays; any other answer of a refused
            # turn (before 0.17.0 the model answers it; a bridge that exited took the turn's
            # checks with it) is withheld.
            if text == turn.refused:
                return text
            if turn.refused.startswith(directives.TAG):
                return turn.refused
            return f"{directives.TAG} this request was refused: {turn.refused}"
        if not self.bridge.has_hook("transform_final_answer"):
            return text
        outcome = self.bridge.call(
            "transform_final_answer",
            {"turn_id": turn.bridge_id, "answer": text, **deadline_param(deadline)},
        )
        if outcome.get("blocked"):
            who = outcome.get("blocked_by") or "an extension"
            return f"{directives.TAG} {who} withheld this answer: {outcome.get('message')}"
        value = outcome.get("value")
        return value if outcome.get("changed") and isinstance(value, str) else text


def refused_answer(outcome):
    """A blocked request as the answer the user gets instead of the model's."""
    who = outcome.get("blocked_by") or "an extension"
    return f"{directives.TAG} {who} refused this request: {outcome.get('message')}"


def deadline_param(deadline):
    """The bridge's ``deadline_ms``: each chain of the call ends within the plugin's own wait."""
    return {} if deadline is None else {"deadline_ms": max(1, int(deadline * 1000) - 200)}


def checked(check, what, deadline):
    """``check(deadline)``'s answer, waited for at most ``deadline`` seconds (None: as long as it
    takes; bounded.py); a refusal (a string) when it failed or ran out of time."""
    try:
        return bounded.run(lambda: check(deadline), deadline)
    except Exception as error:  # Unavailable, TimedOut, an api_mode not understood, an answer not read
        return unchecked(what, error)


def unchecked(what, error):
    return (
        f"{directives.TAG} could not check {what}, so it is refused: {error}. Run `hermes "
        "extensions doctor` to see what is wrong."
    )
