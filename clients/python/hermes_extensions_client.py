"""A stdlib-only client for ``hermes extensions serve --stdio`` (JSON-RPC 2.0, one message a line).

    from hermes_extensions_client import HermesExtensions

    with HermesExtensions(cwd=project_dir) as hooks:
        with hooks.turn(session_id="abc", platform="cli") as turn:
            result = turn.intercept_tool_call("write", {"path": "src/a.py"})
            if result["blocked"]:
                ...  # give the model json.dumps({"error": result["message"], ...})

Thread-safe: calls from several threads (parallel tool calls) interleave on the one process and
each waits for its own answer.

How the Python agent's ``run_conversation`` would use it (a sketch, in the agent's terms)::

    # at start-up
    self.hooks = HermesExtensions(cwd=os.getcwd())
    # in run_conversation(), around the whole turn
    with self.hooks.turn(session_id=self.session_id, platform=self.platform) as turn:
        # 1. after sanitising the user's message
        r = turn.transform_user_input(user_message)
        if r["blocked"]:
            return {"final_response": r["message"], "messages": messages, "blocked": True}
        user_message = r["value"]
        ...
        # 2. before each client.chat.completions.create(), on this request only; with the names
        #    of the tools offered, handlers may take some away for this request (restrictTools)
        r = turn.before_llm_call(messages, self._cached_system_prompt, iteration=i,
                                 tools=[t["function"]["name"] for t in self.tools])
        if r["blocked"]:
            messages.append({"role": "assistant", "content": r["message"]})
            return {"final_response": r["message"], "messages": messages}
        request_messages = r["value"]["messages"]
        request_system_prompt = r["value"]["system_prompt"]
        offered = set(r["value"].get("tools", [t["function"]["name"] for t in self.tools]))
        request_tools = [t for t in self.tools if t["function"]["name"] in offered]
        ...
        # 3. before each handle_function_call()
        r = turn.intercept_tool_call(function_name, function_args, task_id=effective_task_id)
        if not r["blocked"] and r.get("ask") and not self.approve(function_name, r["value"], r["ask"]):
            # a handler asked for a person's approval and nobody gave it (no approver: a denial)
            r = {"blocked": True, "message": "needs approval: " + r["ask"]["message"],
                 "blocked_by": r["ask"]["asked_by"]}
        if r["blocked"]:
            function_result = json.dumps({"error": r["message"], "blocked_by_extension": True,
                                          "extension": r.get("blocked_by")})
        else:
            function_result = handle_function_call(function_name, r["value"], effective_task_id)
"""

import collections
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
from contextlib import contextmanager


class BridgeError(Exception):
    """The bridge answered with a JSON-RPC error, or exited (code -32603): then the message says
    how it ended and the last lines it wrote on stderr, which name the extension it blamed."""

    def __init__(self, code, message):
        super().__init__(f"{message} (code {code})")
        self.code = code


# The bridge's own default for ``--max-line-bytes``. The bridge answers a longer line with an
# error it cannot address (id null, as it never reads the line), so a caller waiting for that
# answer would wait forever: such a request is refused here instead, before it is sent.
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024

# The bridge's last lines on stderr kept, to say in an error why it exited.
STDERR_TAIL_LINES = 5


def default_command(cwd=None):
    """The bridge to start, the first found of:

    1. the package's own ``bin/hermes.js`` when this file sits in the package
       (``clients/python/``), run by the ``node`` on the PATH;
    2. the ``hermes-extensions`` command in an absolute folder of the PATH, by its path.

    Never ``hermes``, which may be the Python agent itself; and never a program of the working
    folder or a folder above it (a project's ``node_modules/.bin``, a relative folder of the PATH):
    a Python host started in a cloned repository would run the clone's program before anything
    of it is trusted. The integrator names any other with ``command=``. ``cwd`` is not read; it
    is kept for callers of earlier versions. Raises FileNotFoundError, saying how to proceed,
    when neither is found."""
    package = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    own_bin = os.path.join(package, "bin", "hermes.js")
    if os.path.isfile(own_bin) and os.path.isfile(os.path.join(package, "package.json")):
        return (shutil.which("node") or "node", own_bin, "extensions", "serve", "--stdio")
    on_path = _on_absolute_path("hermes-extensions")
    if on_path is None:
        raise FileNotFoundError(
            "hermes-extensions is not on the PATH (its absolute folders; the working folder's "
            "node_modules/.bin is never used): install it (npm install --global hermes-extensions), "
            "or give the client command=[...] naming the bridge to start"
        )
    return (on_path, "extensions", "serve", "--stdio")


def _on_absolute_path(name):
    """``name`` (``.cmd`` on Windows) in the first absolute folder of the PATH that has it as an
    executable file, by its path; else None. A relative folder would be read in the working one."""
    if os.name == "nt":
        name += ".cmd"
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isabs(folder):
            continue
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


class HermesExtensions:
    """One ``hermes extensions serve --stdio`` process and the calls made through it.
    ``command`` defaults to ``default_command(cwd)``; ``max_line_bytes`` raises (or lowers) the
    bridge's cap on one request, for both ends; ``tool_dialect`` says whose tool names the calls
    use (``"hermes-agent"``: the bridge names them as extensions know them, and answers in them)."""

    def __init__(
        self,
        command=None,
        cwd=None,
        env=None,
        max_line_bytes=None,
        tool_dialect=None,
    ):
        command = default_command(cwd) if command is None else command
        args = list(command) + (["--cwd", str(cwd)] if cwd is not None else [])
        if max_line_bytes is not None:
            args += ["--max-line-bytes", str(max_line_bytes)]
        self._max_line_bytes = max_line_bytes or DEFAULT_MAX_LINE_BYTES
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._waiting = {}
        self._stderr_tail = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._exit_reason = None
        # Why it ended, once its output has: every later call raises it.
        self._ended = None
        self._relay = threading.Thread(target=self._relay_stderr, daemon=True)
        self._relay.start()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.info = self.call(
            "initialize", {} if tool_dialect is None else {"tool_dialect": tool_dialect}
        )

    def call(self, method, params):
        """Sends one request and waits for its answer (the result, or a BridgeError; once the
        bridge has exited, a BridgeError saying how, at once)."""
        request_id = next(self._ids)
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if len(line) > self._max_line_bytes:  # json.dumps writes ASCII: characters are bytes
            raise BridgeError(
                -32600,
                f"request of {len(line)} bytes is longer than the bridge's limit of "
                f"{self._max_line_bytes} bytes (max_line_bytes)",
            )
        done = threading.Event()
        slot = {"done": done}
        with self._lock:
            if self._ended is not None:
                raise BridgeError(-32603, self._ended)
            self._waiting[request_id] = slot
            try:
                self._process.stdin.write(line + "\n")
                self._process.stdin.flush()
                broken = False
            except (OSError, ValueError):  # a pipe the ended bridge no longer reads
                self._waiting.pop(request_id, None)
                broken = True
        if broken:
            raise BridgeError(-32603, self.exit_reason())
        done.wait()
        if "error" in slot:
            raise BridgeError(slot["error"].get("code"), slot["error"].get("message"))
        return slot["result"]

    @contextmanager
    def turn(self, session_id, platform="cli", turn_id=None):
        """A turn: its per-turn state lives until the ``with`` block ends, even on an exception."""
        params = {"session_id": session_id, "platform": platform}
        if turn_id is not None:
            params["turn_id"] = turn_id
        turn = Turn(self, self.call("turn/start", params)["turn_id"])
        try:
            yield turn
        finally:
            self.call("turn/end", {"turn_id": turn.turn_id})

    def close(self):
        """Closes the bridge's input; it ends open turns and exits."""
        if self._process.stdin and not self._process.stdin.closed:
            self._process.stdin.close()
        self._process.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self):
        for line in self._process.stdout:
            message = json.loads(line)
            with self._lock:
                slot = self._waiting.pop(message.get("id"), None)
            if slot is None:
                continue
            if "error" in message:
                slot["error"] = message["error"]
            else:
                slot["result"] = message.get("result")
            slot["done"].set()
        why = self.exit_reason()
        with self._lock:
            self._ended = why
            for slot in self._waiting.values():
                slot["error"] = {"code": -32603, "message": why}
                slot["done"].set()
            self._waiting.clear()

    def exit_reason(self):
        """Why the bridge process ended, once it has: its exit code or signal, and the last lines
        it wrote on stderr (an extension it blamed is named there)."""
        if self._exit_reason is not None:
            return self._exit_reason
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        # Its stderr closes as it ends: what it wrote last is read by then.
        self._relay.join(timeout=5)
        how = "exit code ?" if code is None else (
            f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        )
        said = " | ".join(self._stderr_tail)
        reason = f"the bridge process exited ({how})" + (f"; it said last: {said}" if said else "")
        if code is not None:
            self._exit_reason = reason
        return reason

    def _relay_stderr(self):
        """Passes the bridge's stderr on to this process's, as it comes, keeping its last lines."""
        for line in self._process.stderr:
            text = line.rstrip("\n")
            # Stack frames are indented: the lines that say what happened are not.
            if text.strip() and not text[:1].isspace():
                self._stderr_tail.append(text)
            if sys.stderr is not None:
                try:
                    sys.stderr.write(line)
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass


class Turn:
    """The three hooks of one turn. Each returns the outcome: blocked, message, blocked_by,
    changed, value, metadata, trace (snake_case, as in the framework's ChainOutcome), and for
    ``intercept_tool_call`` ``ask`` ({"message", "asked_by"}) when a handler asked for a person's
    approval and nobody blocked: ask someone about the call as ``value`` would run it, or, with
    nobody to ask, refuse it with the message."""

    def __init__(self, client, turn_id):
        self._client = client
        self.turn_id = turn_id

    def transform_user_input(self, user_message):
        return self._client.call(
            "transform_user_input", {"turn_id": self.turn_id, "user_message": user_message}
        )

    def before_llm_call(self, messages, system_prompt, iteration=0, model=None, tools=None):
        """``tools``: the names of the tools this request offers. Handlers may narrow them
        (restrictTools): offer only ``value["tools"]`` then; ``value["tool_restrictions"]`` says
        who hid which (``extension``, ``reason``, ``hidden``), and a later call of this turn to a
        tool that was not offered is refused."""
        params = {
            "turn_id": self.turn_id,
            "messages": messages,
            "system_prompt": system_prompt,
            "iteration": iteration,
        }
        if model is not None:
            params["model"] = model
        if tools is not None:
            params["tools"] = list(tools)
        return self._client.call("before_llm_call", params)

    def intercept_tool_call(self, tool_name, tool_args, tool_call_id=None, task_id=None):
        params = {"turn_id": self.turn_id, "tool_name": tool_name, "tool_args": tool_args}
        if tool_call_id is not None:
            params["tool_call_id"] = tool_call_id
        if task_id is not None:
            params["task_id"] = task_id
        return self._client.call("intercept_tool_call", params)
