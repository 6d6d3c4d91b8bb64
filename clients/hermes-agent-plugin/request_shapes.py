"""A Hermes provider request (the ``request`` of its ``llm_request`` middleware) as the bridge's
``before_llm_call`` payload and back, for each ``api_mode`` Hermes builds requests in
(agent/conversation_loop.py in 0.19, agent/turn_api_request.py ``build_api_request`` later):

- ``chat_completions``: ``messages`` (the system prompt is a leading ``system`` message), ``tools``
  as ``{"type": "function", "function": {"name"}}``;
- ``anthropic_messages``: ``system`` (text or text blocks), ``messages`` whose content is text or
  blocks (``text``, ``tool_use``, ``tool_result``…), ``tools`` as ``{"name"}``;
- ``codex_responses``: ``instructions``, ``input`` items (messages, ``function_call``,
  ``function_call_output``, reasoning…), ``tools`` as ``{"type": "function", "name"}``.

The bridge's messages are text only (docs/bridge.md). What an extension leaves as it was goes back
as Hermes built it (images, thinking blocks, cache markers and all); only what it adds or changes
is built anew from its text. Pure functions, no I/O; they never change the request they are given.
"""

import copy
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


def _items(request, api_mode):
    key = "input" if api_mode == "codex_responses" else "messages"
    items = request.get(key)
    return key, items if isinstance(items, list) else []


def system_text(request, api_mode):
    if api_mode == "codex_responses":
        value = request.get("instructions")
        return value if isinstance(value, str) else ""
    if api_mode == "anthropic_messages":
        return _text(request.get("system"))
    _, items = _items(request, api_mode)
    first = items[0] if items else None
    if isinstance(first, dict) and first.get("role") == "system":
        return _text(first.get("content"))
    return ""


def to_wire(request, api_mode):
    """``(system_prompt, messages, owners)``: the bridge's messages of the request, and for each
    the index of the request item it comes from (an Anthropic user message of several tool
    results is several; a reasoning item none)."""
    _, items = _items(request, api_mode)
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
    return [_tool_name(tool) for tool in tools]


def _tool_name(tool):
    if not isinstance(tool, dict):
        return ""
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return function["name"]
    return str(tool.get("name") or "")


# -- writing ------------------------------------------------------------------------------------


def with_user_rewrites(request, api_mode, rewrites):
    """A copy of the request whose user messages that begin with an original text (Hermes appends
    its own context after it, agent/turn_context.py ``compose_user_api_content``) begin with its
    rewrite instead; ``rewrites`` maps originals to rewrites. The copy, and whether it changed."""
    out = copy.deepcopy(request)
    key, items = _items(out, api_mode)
    changed = False
    for item in items:
        if not isinstance(item, dict) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            new = _rewritten(content, rewrites)
            if new is not None:
                item["content"] = new
                changed = True
        elif isinstance(content, list):
            for part in content:
                text = part.get("text") if isinstance(part, dict) else None
                new = _rewritten(text, rewrites) if isinstance(text, str) else None
                if new is not None:
                    part["text"] = new
                    changed = True
                    break
    return out, changed


def _rewritten(text, rewrites):
    for original, rewrite in rewrites.items():
        if original and original != rewrite and (
            text == original or text.startswith(original + "\n")
        ):
            return rewrite + text[len(original) :]
    return None


def apply(request, api_mode, sent, value):
    """A copy of the request as ``before_llm_call``'s ``value`` leaves it: ``sent`` is what the
    bridge was given (``to_wire``'s answer and the tool names). The copy, and whether it changed."""
    system, messages, owners, tools = sent
    out = copy.deepcopy(request)
    changed = False
    new_system = value.get("system_prompt")
    if isinstance(new_system, str) and new_system != system:
        _set_system(out, api_mode, system, new_system)
        changed = True
    new_messages = value.get("messages")
    if isinstance(new_messages, list) and new_messages != messages:
        key, items = _items(out, api_mode)
        head = _head(items, api_mode)
        out[key] = items[:head] + _merge(items, head, messages, owners, new_messages, api_mode)
        changed = True
    kept = value.get("tools")
    if tools is not None and isinstance(kept, list) and kept != tools:
        _keep_tools(out, api_mode, set(kept))
        changed = True
    return out, changed


def _set_system(request, api_mode, old, new):
    """Sets the system prompt; text added after the old one is a block of its own where the
    prompt is blocks, so Hermes' cache markers stay on what is unchanged."""
    if api_mode == "codex_responses":
        request["instructions"] = new
        return
    if api_mode == "anthropic_messages":
        request["system"] = _extended(request.get("system"), old, new)
        return
    items = request.get("messages")
    if not isinstance(items, list):
        request["messages"] = items = []
    if items and isinstance(items[0], dict) and items[0].get("role") == "system":
        items[0] = {**items[0], "content": _extended(items[0].get("content"), old, new)}
    elif new:
        items.insert(0, {"role": "system", "content": new})


def _extended(content, old, new):
    if isinstance(content, list) and old and new.startswith(old):
        added = new[len(old) :].lstrip("\n")
        return content + ([{"type": "text", "text": added}] if added else [])
    return new


def _head(items, api_mode):
    """How many items lead the request before its messages: chat completions' system prompt."""
    first = items[0] if items else None
    return 1 if api_mode == "chat_completions" and isinstance(first, dict) and first.get("role") == "system" else 0


def _merge(items, start, sent, owners, wanted, api_mode):
    """The request's items from ``start`` on, for the messages ``wanted``: a message also in
    ``sent`` (in order) keeps the item it came from, when every message of that item is kept; any
    other is built anew."""
    matched = {}
    cursor = 0
    for k, message in enumerate(wanted):
        for j in range(cursor, len(sent)):
            if sent[j] == message:
                matched[k] = j
                cursor = j + 1
                break
    kept = set(matched.values())
    wire_of = {}
    for j, owner in enumerate(owners):
        wire_of.setdefault(owner, []).append(j)
    whole = {owner for owner, js in wire_of.items() if all(j in kept for j in js)}
    out = []
    position = start

    def silent_until(stop):
        # Items with no message of their own (reasoning) stay where they were.
        for index in range(position, stop):
            if index not in wire_of:
                out.append(items[index])

    for k, message in enumerate(wanted):
        j = matched.get(k)
        owner = owners[j] if j is not None else None
        if owner is not None and owner in whole:
            if owner >= position:
                silent_until(owner)
                out.append(items[owner])
                position = owner + 1
            continue
        out.extend(_from_wire(message, api_mode))
    silent_until(len(items))
    return out


def _from_wire(message, api_mode):
    role = message.get("role")
    text = message.get("content") if isinstance(message.get("content"), str) else ""
    calls = message.get("tool_calls") or []
    if api_mode == "chat_completions":
        item = {"role": role, "content": text}
        if role == "tool":
            item.update(tool_call_id=message.get("tool_call_id", ""), name=message.get("name", ""))
        if calls:
            item["tool_calls"] = [
                {
                    "id": c.get("id", ""),
                    "type": "function",
                    "function": {"name": c.get("name", ""), "arguments": json.dumps(c.get("arguments") or {})},
                }
                for c in calls
            ]
        return [item]
    if api_mode == "anthropic_messages":
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id", ""), "content": text}
            return [{"role": "user", "content": [block]}]
        if role == "assistant" and calls:
            blocks = [{"type": "text", "text": text}] if text else []
            blocks += [
                {"type": "tool_use", "id": c.get("id", ""), "name": c.get("name", ""), "input": c.get("arguments") or {}}
                for c in calls
            ]
            return [{"role": "assistant", "content": blocks}]
        # Anthropic has no system message among the messages: one there goes as the user's.
        return [{"role": "assistant" if role == "assistant" else "user", "content": text}]
    if role == "tool":
        return [{"type": "function_call_output", "call_id": message.get("tool_call_id", ""), "output": text}]
    out = [{"role": "developer" if role == "system" else role, "content": text}] if text or not calls else []
    out += [
        {"type": "function_call", "call_id": c.get("id", ""), "name": c.get("name", ""), "arguments": json.dumps(c.get("arguments") or {})}
        for c in calls
    ]
    return out


def _keep_tools(request, api_mode, kept):
    """Takes out of the request every tool not in ``kept``, and a ``tool_choice`` that names one."""
    tools = [tool for tool in request.get("tools") or [] if _tool_name(tool) in kept]
    if tools:
        request["tools"] = tools
    else:
        # An empty list is refused by some providers: no tools is no key.
        request.pop("tools", None)
    choice = request.get("tool_choice")
    named = _tool_name(choice) if isinstance(choice, dict) else ""
    if not tools or (named and named not in kept):
        request.pop("tool_choice", None)
    if not tools:
        # OpenAI refuses parallel_tool_calls without tools.
        request.pop("parallel_tool_calls", None)


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
    key, items = _items(request, api_mode)
    fields = {
        key: items,
        "system": request.get("system"),
        "instructions": request.get("instructions"),
        "tools": request.get("tools"),
        "tool_choice": request.get("tool_choice"),
    }
    return json.dumps(fields, sort_keys=True, default=str)
