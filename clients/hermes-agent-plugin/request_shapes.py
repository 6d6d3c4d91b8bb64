"""A Hermes provider request (the ``request`` of its ``llm_request`` middleware) as the bridge's
``before_llm_call`` payload and back, for each ``api_mode`` Hermes builds requests in
(agent/conversation_loop.py in 0.19, agent/turn_api_request.py ``build_api_request`` later):

- ``chat_completions``: ``messages`` (the system prompt is a leading ``system`` message), ``tools``
  as ``{"type": "function", "function": {"name"}}``;
- ``anthropic_messages``: ``system`` (text or text blocks), ``messages`` whose content is text or
  blocks (``text``, ``tool_use``, ``tool_result``…), ``tools`` as ``{"name"}``;
- ``codex_responses``: ``instructions``, ``input`` items (messages, ``function_call``,
  ``function_call_output``, reasoning…), ``tools`` as ``{"type": "function", "name"}``.

Here: reading a request as the bridge's messages, and a refusal in each mode's response shape;
request_edits.py writes the chains' changes back. Pure functions, no I/O.
"""

import json
from types import SimpleNamespace

from . import directives

MODES = ("chat_completions", "anthropic_messages", "codex_responses")


class Unsupported(Exception):
    """An ``api_mode`` whose requests this plugin cannot read."""


def check_mode(api_mode):
    if api_mode not in MODES:
        raise Unsupported(
            f"Hermes sends this request in api_mode {api_mode!r}, which hermes-extensions cannot "
            f"read (it reads {', '.join(MODES)}); choose a provider that uses one of those"
        )


# -- reading ------------------------------------------------------------------------------------


def _text(content):
    return directives.message_text(content) or ""


def _arguments(raw):
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"_raw": raw}
        return parsed if isinstance(parsed, dict) else {"_raw": raw}
    return {}


def items_of(request, api_mode):
    key = "input" if api_mode == "codex_responses" else "messages"
    items = request.get(key)
    return key, items if isinstance(items, list) else []


def system_text(request, api_mode):
    if api_mode == "codex_responses":
        value = request.get("instructions")
        return value if isinstance(value, str) else ""
    if api_mode == "anthropic_messages":
        return _text(request.get("system"))
    _, items = items_of(request, api_mode)
    first = items[0] if items else None
    if isinstance(first, dict) and first.get("role") == "system":
        return _text(first.get("content"))
    return ""


def to_wire(request, api_mode):
    """``(system_prompt, messages, owners)``: the bridge's messages of the request, and for each
    the index of the request item it comes from (an Anthropic user message of several tool
    results is several; a reasoning item none)."""
    _, items = items_of(request, api_mode)
    messages, owners, names = [], [], {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        if api_mode == "chat_completions" and index == 0 and item.get("role") == "system":
            continue  # the system prompt
        for message in _item_to_wire(item, api_mode, names):
            messages.append(message)
            owners.append(index)
    return system_text(request, api_mode), messages, owners


def _item_to_wire(item, api_mode, names):
    """The bridge's messages for one request item; ``names`` maps the tool call ids seen so far
    to their tools (a tool result names its tool on the wire)."""
    if api_mode == "chat_completions":
        wire = directives.wire_messages([item])
        for message in wire:
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["name"]
        return wire
    if api_mode == "anthropic_messages":
        return _anthropic_to_wire(item, names)
    return _responses_to_wire(item, names)


def _anthropic_to_wire(item, names):
    role, content = item.get("role"), item.get("content")
    if role not in ("user", "assistant"):
        return []
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    blocks = [b for b in content or [] if isinstance(b, dict)]
    out = []
    calls = []
    for block in blocks:
        if block.get("type") == "tool_result":
            call_id = str(block.get("tool_use_id") or "")
            out.append(
                {
                    "role": "tool",
                    "content": _text(block.get("content")),
                    "tool_call_id": call_id,
                    "name": names.get(call_id, ""),
                }
            )
        elif block.get("type") == "tool_use":
            call = {
                "id": str(block.get("id") or ""),
                "name": str(block.get("name") or ""),
                "arguments": _arguments(block.get("input")),
            }
            names[call["id"]] = call["name"]
            calls.append(call)
    text = "\n".join(
        b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
    )
    if text or calls or not out:
        message = {"role": role, "content": text}
        if calls:
            message["tool_calls"] = calls
        out.append(message)
    return out


def _responses_to_wire(item, names):
    kind = item.get("type")
    if kind == "function_call":
        call = {
            "id": str(item.get("call_id") or item.get("id") or ""),
            "name": str(item.get("name") or ""),
            "arguments": _arguments(item.get("arguments")),
        }
        names[call["id"]] = call["name"]
        return [{"role": "assistant", "content": "", "tool_calls": [call]}]
    if kind == "function_call_output":
        call_id = str(item.get("call_id") or "")
        output = item.get("output")
        return [
            {
                "role": "tool",
                "content": output if isinstance(output, str) else _text(output),
                "tool_call_id": call_id,
                "name": names.get(call_id, ""),
            }
        ]
    role = item.get("role")
    if kind not in (None, "message") or role not in ("user", "assistant", "system", "developer"):
        return []  # reasoning, and the provider's own items: not text the extensions judge
    return [{"role": "system" if role == "developer" else role, "content": _text(item.get("content"))}]


def tool_names(request, api_mode):
    """The names of the tools the request offers, or None when it offers none."""
    tools = request.get("tools")
    if not isinstance(tools, list):
        return None
    return [tool_name(tool) for tool in tools]


def tool_name(tool):
    if not isinstance(tool, dict):
        return ""
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return function["name"]
    return str(tool.get("name") or "")


# -- a refusal as the model's answer ----------------------------------------------------------


def refusal_response(api_mode, text, model):
    """A provider response carrying ``text`` as the whole answer, no tool calls, in the shape
    Hermes reads for ``api_mode`` (agent/transports/*.py ``validate_response`` and
    ``normalize_response``): the turn ends with it, and no model is called."""
    model = str(model or "hermes-extensions")
    if api_mode == "anthropic_messages":
        return SimpleNamespace(
            id="msg_hermes_extensions",
            type="message",
            role="assistant",
            model=model,
            content=[SimpleNamespace(type="text", text=text)],
            stop_reason="end_turn",
            stop_sequence=None,
            usage=None,
        )
    if api_mode == "codex_responses":
        return SimpleNamespace(
            id="resp_hermes_extensions",
            object="response",
            status="completed",
            model=model,
            output=[
                SimpleNamespace(
                    type="message",
                    id="msg_hermes_extensions",
                    role="assistant",
                    status="completed",
                    content=[SimpleNamespace(type="output_text", text=text, annotations=[])],
                )
            ],
            output_text=text,
            incomplete_details=None,
            error=None,
            usage=None,
        )
    message = SimpleNamespace(role="assistant", content=text, tool_calls=None, refusal=None)
    return SimpleNamespace(
        id="chatcmpl-hermes-extensions",
        object="chat.completion",
        model=model,
        choices=[SimpleNamespace(index=0, message=message, finish_reason="stop")],
        usage=None,
    )


def digest(request, api_mode):
    """What the checks judged of a request, to tell whether it is still what was checked."""
    key, items = items_of(request, api_mode)
    fields = {
        key: items,
        "system": request.get("system"),
        "instructions": request.get("instructions"),
        "tools": request.get("tools"),
        "tool_choice": request.get("tool_choice"),
    }
    return json.dumps(fields, sort_keys=True, default=str)
