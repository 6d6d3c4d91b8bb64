"""What a chain's outcome (the bridge's answer, docs/bridge.md) becomes in the Hermes agent's
terms: a ``pre_tool_call`` directive, or ``pre_llm_call`` context. Pure functions, no I/O."""

import json

TAG = "[hermes-extensions]"


def block(message):
    return {"action": "block", "message": message}


def tool_call_directive(outcome, args):
    """``intercept_tool_call``'s outcome as what ``pre_tool_call`` returns: a block, a modify, or
    None (the call runs as asked). An ``ask`` is answered by ``approval_directive`` instead."""
    if outcome.get("blocked"):
        return block(outcome.get("message") or "refused by hermes-extensions")
    if not outcome.get("changed"):
        return None
    value = outcome.get("value")
    if not isinstance(value, dict):
        return block(f"{TAG} the rewritten arguments are not an object, so the call is refused")
    # Hermes merges a modify over the arguments the model sent: it can add and change keys, not
    # drop them. A rewrite that drops one is refused rather than run with the dropped key.
    dropped = sorted(set(args) - set(value))
    if dropped:
        who = ", ".join(rewriters(outcome)) or "an extension"
        return block(
            f"{TAG} {who} rewrote this call without the argument(s) {', '.join(dropped)}; the "
            "Hermes agent can only add or change a tool call's arguments, so the call is refused "
            "instead of running with them"
        )
    return {"action": "modify", "args": value}


def unchecked_call(error):
    return block(
        f"{TAG} could not check this tool call, so it is refused: {error}. "
        "Run `hermes extensions doctor` to see what is wrong; tool calls are refused "
        "until hermes-extensions can check them."
    )


def approval_directive(ask, tool_name):
    """An ``ask`` as Hermes' approval directive: Hermes asks the person, and a denial, a time-out
    or no one to ask refuses the call. The rule key scopes a remembered "always" to this
    extension and tool."""
    asked_by = ask.get("asked_by") or "an extension"
    return {
        "action": "approve",
        "message": f"{asked_by}: {ask.get('message') or 'asks for approval'}",
        "rule_key": f"hermes-extensions:{asked_by}:{tool_name}",
    }


def unasked_approval(ask, reason):
    """An ``ask`` where Hermes would approve the call without asking anyone: a block."""
    asked_by = ask.get("asked_by") or "an extension"
    return block(
        f"{TAG} {asked_by} asks a person to approve this call ({ask.get('message') or 'no reason given'}), "
        f"and nobody is asked: {reason}. The call is refused; run Hermes where it asks "
        "(without --yolo, interactively, or through a gateway) to approve such calls."
    )


def rewriters(outcome):
    """The extensions that rewrote or injected, in chain order, each once."""
    names = []
    for step in outcome.get("trace") or []:
        if step.get("action") in ("rewrite", "inject_system", "inject_user"):
            name = step.get("extension")
            if name and name not in names:
                names.append(name)
    return names


def refused_context(outcome):
    who = outcome.get("blocked_by") or "an extension"
    return (
        f"{TAG} This request was refused by {who}: {outcome.get('message')}\n"
        "Do not carry it out; every tool call of this turn is refused. Tell the user that the "
        "request was refused, and why."
    )


def unchecked_reason(error):
    return (
        f"{TAG} could not check this turn's request ({error}), so the turn's tool calls are "
        "refused; run `hermes extensions doctor` to see why"
    )


def rewritten_input_context(outcome):
    who = ", ".join(rewriters(outcome)) or "an extension"
    return f"{TAG} {who} rewrote this request. Treat the request as:\n{outcome.get('value')}"


def request_context(sent, outcome, warn):
    """What ``before_llm_call`` added to the request, as context. Hermes lets a plugin add text
    to the user's message and nothing else: an injection or an appended message goes as its
    text; a change to what was there already cannot be made, and is logged with ``warn``."""
    value = outcome.get("value") or {}
    parts = []
    system = (value.get("system_prompt") or "").strip()
    if system:
        parts.append(system)
    messages = value.get("messages") or []
    if messages[: len(sent)] == sent:
        parts.extend(message_text(m.get("content")) or "" for m in messages[len(sent) :])
    else:
        warn(
            "before_llm_call: %s changed earlier messages of the request; the Hermes agent "
            "cannot apply that, so only what was added goes to the model"
            % (", ".join(rewriters(outcome)) or "an extension")
        )
    return [part for part in parts if part.strip()]


def message_text(content):
    """A message's text: the string, or the text parts of a list of content parts; None when it
    has no text (an image only)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part.get("text")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts) if texts else None
    return None


def wire_messages(history):
    """Hermes' OpenAI-format history as the bridge's messages (docs/hosts.md): string content,
    tool calls as ``{id, name, arguments}``; ``tool_calls``/``tool_call_id`` stay snake_case on
    the wire."""
    out = []
    for message in history or []:
        if not isinstance(message, dict) or message.get("role") not in (
            "user",
            "assistant",
            "system",
            "tool",
        ):
            continue
        wire = {"role": message["role"], "content": message_text(message.get("content")) or ""}
        if message["role"] == "tool":
            wire["tool_call_id"] = str(message.get("tool_call_id") or "")
            wire["name"] = str(message.get("name") or "")
        calls = [_tool_call(call) for call in message.get("tool_calls") or []]
        if calls:
            wire["tool_calls"] = calls
        out.append(wire)
    return out


def _tool_call(call):
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"_raw": arguments}
    return {
        "id": str(call.get("id") or "") if isinstance(call, dict) else "",
        "name": str(function.get("name") or ""),
        "arguments": arguments if isinstance(arguments, dict) else {},
    }


def json_data(value):
    """``value`` as JSON data: what json cannot encode becomes its ``str``."""
    return json.loads(json.dumps(value, default=str))


# -- tool results -----------------------------------------------------------------------------


def wire_result(result):
    """A Hermes tool result as ``transform_tool_result``'s ``result``. Hermes' tools return JSON
    text: an object or array in it goes as the data it holds, so handlers read and rewrite its
    fields (a redactor keeps its shape); any other text goes as it is."""
    if isinstance(result, str):
        try:
            parsed = json.loads(result)
        except ValueError:
            return result
        return parsed if isinstance(parsed, (dict, list)) else result
    return json_data(result)


def result_text(outcome):
    """``transform_tool_result``'s outcome as what Hermes' hook of that name returns: None keeps
    the result, a string replaces it. A rewrite goes as text (data as JSON text, as Hermes'
    results are); a block as the refusal, never the result."""
    if not isinstance(outcome, dict):
        raise ValueError("the bridge answered transform_tool_result with what is not an outcome")
    if outcome.get("blocked"):
        return refused_result(
            outcome.get("message") or "refused by hermes-extensions",
            outcome.get("blocked_by") or "hermes-extensions",
        )
    if not outcome.get("changed"):
        return None
    value = outcome.get("value")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def refused_result(message, extension="hermes-extensions"):
    """The result the model gets in place of one it may not see (docs/hosts.md)."""
    return json.dumps(
        {"error": message, "blocked_by_extension": True, "extension": extension},
        ensure_ascii=False,
    )


def unchecked_result(error):
    return refused_result(
        f"{TAG} could not check this tool's result, so it is withheld from the model: {error}. "
        "Run `hermes extensions doctor` to see what is wrong; tool results are withheld until "
        "hermes-extensions can check them."
    )
