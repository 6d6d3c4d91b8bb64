"""The chains' changes written back into a Hermes provider request, in its ``api_mode``'s shape
(request_shapes.py reads it). The bridge's messages are text only (docs/bridge.md): what an
extension leaves as it was goes back as Hermes built it (images, thinking blocks, cache markers
and all); only what it adds or changes is built anew from its text. Pure functions, no I/O; they
never change the request they are given.
"""

import copy
import json

from .request_shapes import items_of, system_text, tool_name


def with_user_rewrites(request, api_mode, rewrites):
    """A copy of the request whose user messages that begin with an original text (Hermes appends
    its own context after a blank line, agent/turn_context.py ``compose_user_api_content``) begin
    with its rewrite instead; ``rewrites`` maps originals to rewrites. The copy, and whether it
    changed."""
    out = copy.deepcopy(request)
    _, items = items_of(out, api_mode)
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
    """The text with its user message rewritten, or None to keep it. The longest original that
    matches decides, so a message that begins with an earlier one is judged as itself: ``rewrites``
    also holds the messages left as they were (mapped to themselves)."""
    for original in sorted(rewrites, key=len, reverse=True):
        if original and (text == original or text.startswith(original + "\n\n")):
            rewrite = rewrites[original]
            return None if rewrite == original else rewrite + text[len(original) :]
    return None


def apply(request, api_mode, sent, value):
    """A copy of the request as ``before_llm_call``'s ``value`` leaves it: ``sent`` is what the
    bridge was given (``to_wire``'s answer and the tool names). The copy, and whether it changed."""
    system, messages, owners, tools = sent
    out = copy.deepcopy(request)
    changed = False
    new_messages = value.get("messages")
    if isinstance(new_messages, list) and new_messages != messages:
        # Before the system prompt: ``owners`` index the items as they were sent.
        key, items = items_of(out, api_mode)
        head = _head(items, api_mode)
        out[key] = items[:head] + _merge(items, head, messages, owners, new_messages, api_mode)
        changed = True
    new_system = value.get("system_prompt")
    if isinstance(new_system, str) and new_system != system:
        _set_system(out, api_mode, system, new_system)
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
    tools = [tool for tool in request.get("tools") or [] if tool_name(tool) in kept]
    if tools:
        request["tools"] = tools
    else:
        # An empty list is refused by some providers: no tools is no key.
        request.pop("tools", None)
    choice = request.get("tool_choice")
    named = tool_name(choice) if isinstance(choice, dict) else ""
    if not tools or (named and named not in kept):
        request.pop("tool_choice", None)
    if not tools:
        # OpenAI refuses parallel_tool_calls without tools.
        request.pop("parallel_tool_calls", None)
