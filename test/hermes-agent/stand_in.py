"""A stand-in for the Hermes agent's plugin host, written from its documented plugin API,
standard library only: it loads a plugin folder as Hermes does (``plugin.yaml`` beside an
``__init__.py`` imported as the package ``hermes_plugins.<slug>``, then ``register(ctx)``), fires
hooks with keyword arguments, resolves ``pre_tool_call`` answers as Hermes documents them, and
runs a plugin's CLI command through argparse as ``hermes <name> …`` does.

    python3 stand_in.py PLUGIN_DIR RESULTS_FILE < steps.json

Each step is ``{"hook": NAME, "kwargs": {...}}``, ``{"tool": {...}}`` (one tool call through
Hermes' whole tool path: stand_in_tools.py ``run_tool``), ``{"llm": {...}}`` (one model request
of a turn: its context kwargs and ``request``, run through the middleware and a model that answers
"model answer": stand_in_middleware.py ``llm_step``), ``{"cli": [ARG, ...]}``, or
``{"kill_children": true}`` (the plugin's bridge dies; Linux only). RESULTS_FILE gets one JSON
line per step (a ``transform_tool_result`` or ``tool`` step's has ``model_gets``: the result
Hermes hands the model; a ``transform_llm_output`` step's ``final``: the answer); stdout and
stderr are the plugin's (its CLI's output, its log).

The context has ``register_middleware`` (Hermes v0.17.0 and later, hermes_cli/middleware.py; the
tool path as 0.19.0 runs it) unless ``STAND_IN_MIDDLEWARE=0``: then it stands in for an older
Hermes, which has none. ``STAND_IN_PLUGINS_AFTER`` names more plugin folders (``os.pathsep``
between), loaded after PLUGIN_DIR in this order, as Hermes loads plugins one after the other.
"""

import argparse
import atexit
import importlib.util
import json
import logging
import os
import signal
import sys
import threading
import time
import types

from stand_in_middleware import VALID_MIDDLEWARE, llm_step
from stand_in_tools import run_tool

# The hook names the Hermes agent accepts from plugins, as it documents them.
VALID_HOOKS = {
    "pre_tool_call", "post_tool_call", "transform_terminal_output", "transform_tool_result",
    "transform_llm_output", "pre_llm_call", "post_llm_call", "on_stream_start", "on_stream_delta",
    "on_stream_end", "on_interim_message", "pre_verify", "pre_api_request", "post_api_request",
    "api_request_error", "transform_api_error_classification", "on_session_start",
    "on_session_end", "on_session_finalize", "on_session_reset", "on_skill_lifecycle",
    "subagent_start", "subagent_stop", "pre_gateway_dispatch", "agent_loop_stopped",
    "pre_approval_request", "post_approval_response", "pre_transcription", "pre_command",
}


class PluginContext:
    """The part of Hermes' ``PluginContext`` the plugin uses."""

    def __init__(self):
        self.hooks = {}
        self.cli_commands = {}
        self.problems = []

    def register_hook(self, hook_name, callback):
        if hook_name not in VALID_HOOKS:
            self.problems.append(f"unknown hook {hook_name}")
        if not callable(callback):
            self.problems.append(f"{hook_name}: callback is not callable")
        self.hooks.setdefault(hook_name, []).append(callback)

    def register_cli_command(self, name, help, setup_fn, handler_fn=None, description=""):
        self.cli_commands[name] = {
            "name": name, "help": help, "setup_fn": setup_fn, "handler_fn": handler_fn,
            "description": description,
        }


class MiddlewareContext(PluginContext):
    """Hermes 0.17.0 and later: hermes_cli/plugins.py ``PluginContext.register_middleware`` keeps
    the callbacks of each kind in registration (load) order; an unknown kind is kept, with a
    warning."""

    def __init__(self):
        super().__init__()
        self.middleware = {}

    def register_middleware(self, kind, callback):
        if kind not in VALID_MIDDLEWARE:
            self.problems.append(f"unknown middleware {kind}")
        if not callable(callback):
            self.problems.append(f"{kind}: middleware callback is not callable")
        self.middleware.setdefault(kind, []).append(callback)


def load(plugin_dir, ctx):
    """Imports the folder as Hermes imports a directory plugin, then calls ``register(ctx)``."""
    if not os.path.isfile(os.path.join(plugin_dir, "plugin.yaml")):
        raise SystemExit(f"no plugin.yaml in {plugin_dir}")
    slug = os.path.basename(plugin_dir.rstrip(os.sep)).replace("-", "_")
    if "hermes_plugins" not in sys.modules:
        namespace = types.ModuleType("hermes_plugins")
        namespace.__path__ = []
        sys.modules["hermes_plugins"] = namespace
    name = f"hermes_plugins.{slug}"
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(plugin_dir, "__init__.py"), submodule_search_locations=[plugin_dir]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    module.register(ctx)


# Hooks Hermes waits for at most ``plugins.hook_callback_timeout`` seconds (30 unless set; here
# $STAND_IN_HOOK_CALLBACK_TIMEOUT): a callback still running then is abandoned and its answer
# ignored, so for these the tool's own result goes on (Hermes fails open there). From
# hermes_cli/plugins_dispatch.py ``_HOOK_TIMEOUT_BOUNDED_HOOKS`` (the hooks this plugin takes).
BOUNDED_HOOKS = {
    "post_tool_call", "transform_tool_result", "transform_llm_output", "pre_llm_call",
    "post_llm_call", "pre_api_request", "post_api_request", "api_request_error",
    "on_session_start", "on_session_end",
}

# Bounded too, and failed closed: a callback that runs past the limit or raises is a block
# (hermes_cli/plugins_dispatch.py ``_HOOK_TIMEOUT_FAIL_CLOSED_HOOKS`` and
# ``PluginDispatchMixin.invoke_hook``; 0.19.0's hermes_cli/plugins.py ``invoke_hook`` had neither).
FAIL_CLOSED_HOOKS = {"pre_tool_call"}
TIMEOUT_BLOCK_MESSAGE = "pre_tool_call plugin callback timed out or is still running"


def hook_callback_timeout(_name=None):
    return float(os.environ.get("STAND_IN_HOOK_CALLBACK_TIMEOUT") or 30)


def provide_hermes_cli():
    """The part of Hermes' own modules a plugin may read: its hook callback timeout."""
    package = types.ModuleType("hermes_cli")
    package.__path__ = []
    plugins = types.ModuleType("hermes_cli.plugins")
    plugins._resolve_hook_callback_timeout = hook_callback_timeout
    sys.modules["hermes_cli"] = package
    sys.modules["hermes_cli.plugins"] = plugins


class TimedOut(Exception):
    pass


def call_bounded(callback, kwargs, timeout):
    """The callback on a worker, abandoned after ``timeout`` seconds (``TimedOut``)."""
    box = {}

    def run():
        try:
            box["result"] = callback(**kwargs)
        except Exception as error:
            box["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        logging.warning("Hook callback %s timed out; skipped", callback.__name__)
        raise TimedOut()
    if "error" in box:
        raise box["error"]
    return box.get("result")


def invoke_hook(ctx, hook, kwargs):
    """Every callback in registration order with the keyword payload (plus the schema marker);
    the non-None returns. An exception in a ``pre_tool_call`` callback blocks (Hermes fails
    closed there); elsewhere it is logged and skipped."""
    results = []
    timeout = hook_callback_timeout()
    for callback in ctx.hooks.get(hook, []):
        payload = {**kwargs, "telemetry_schema_version": "hermes.observer.v1"}
        try:
            if timeout > 0 and (hook in BOUNDED_HOOKS or hook in FAIL_CLOSED_HOOKS):
                result = call_bounded(callback, payload, timeout)
            else:
                result = callback(**payload)
        except TimedOut:
            if hook in FAIL_CLOSED_HOOKS:
                results.append({"action": "block", "message": TIMEOUT_BLOCK_MESSAGE})
            continue
        except Exception as error:
            if hook in FAIL_CLOSED_HOOKS:
                results.append({
                    "action": "block",
                    "message": f"{hook} plugin callback raised {type(error).__name__}: {error}",
                })
            else:
                logging.warning("Hook %s callback raised: %s", hook, error)
            continue
        if result is not None:
            results.append(result)
    return results


def tool_call_directive(results, args):
    """What Hermes makes of ``pre_tool_call`` returns: any valid block (non-empty message) wins,
    then the first valid approve; modify args are shallow-merged over the call's arguments."""
    modified = None
    approve = None
    for result in results:
        if not isinstance(result, dict):
            continue
        action = result.get("action")
        if action == "modify" and isinstance(result.get("args"), dict) and result["args"]:
            modified = {**(modified or args or {}), **result["args"]}
        elif action == "block" and isinstance(result.get("message"), str) and result["message"]:
            return {"action": "block", "message": result["message"], "args": modified}
        elif action == "approve" and approve is None:
            approve = {"action": "approve", "message": result.get("message"),
                       "rule_key": result.get("rule_key")}
    if approve is not None:
        return {**approve, "args": modified}
    return {"action": None, "args": modified}


def run_cli(ctx, argv):
    parser = argparse.ArgumentParser(prog="hermes")
    commands = parser.add_subparsers(dest="command")
    for entry in ctx.cli_commands.values():
        sub = commands.add_parser(entry["name"], help=entry["help"], description=entry["description"])
        entry["setup_fn"](sub)
        if entry["handler_fn"] is not None:
            sub.set_defaults(func=entry["handler_fn"])
    parsed = parser.parse_args(argv)
    sys.stdout.flush()
    try:
        code = parsed.func(parsed)
    except SystemExit as exit_:
        code = exit_.code
    return code if isinstance(code, int) else 0


def kill_children():
    """Kills this process's child processes (the plugin's bridge) and waits until each has exited
    (Linux: read from /proc). How many there were."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            children.append(int(entry))
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    for pid in children:
        while time.monotonic() < deadline:
            try:
                # A zombie whose other threads are gone: its parent can now collect its status.
                with open(f"/proc/{pid}/stat") as stat:
                    state = stat.read().rsplit(")", 1)[1].split()[0]
                if state == "Z" and len(os.listdir(f"/proc/{pid}/task")) <= 1:
                    break
            except OSError:
                break
            time.sleep(0.02)
    return len(children)


def main():
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s")
    plugin_dir, results_file = sys.argv[1], sys.argv[2]
    steps = json.load(sys.stdin)
    ctx = PluginContext() if os.environ.get("STAND_IN_MIDDLEWARE") == "0" else MiddlewareContext()
    provide_hermes_cli()
    load(plugin_dir, ctx)
    # Plugins loaded after it, in this order: their callbacks come after its.
    for other in filter(None, os.environ.get("STAND_IN_PLUGINS_AFTER", "").split(os.pathsep)):
        load(other, ctx)
    with open(results_file, "w") as out:
        def record(value):
            out.write(json.dumps(value) + "\n")
            out.flush()

        record({"registered": {k: len(v) for k, v in ctx.hooks.items()},
                "middleware": {k: len(v) for k, v in getattr(ctx, "middleware", {}).items()},
                "cli": sorted(ctx.cli_commands), "problems": ctx.problems})
        for step in steps:
            if "cli" in step:
                record({"cli": run_cli(ctx, step["cli"])})
                continue
            if "kill_children" in step:
                record({"killed": kill_children()})
                continue
            if "llm" in step:
                record(llm_step(ctx, step["llm"]))
                continue
            if "tool" in step:
                takes_modify = not isinstance(ctx, MiddlewareContext)
                record(run_tool(ctx, step["tool"], invoke_hook, tool_call_directive, takes_modify))
                continue
            results = invoke_hook(ctx, step["hook"], step.get("kwargs", {}))
            entry = {"hook": step["hook"], "results": results}
            if step["hook"] == "pre_tool_call":
                entry["directive"] = tool_call_directive(results, step["kwargs"].get("args"))
            if step["hook"] == "transform_tool_result":
                # Hermes hands the model the first string a callback returns, else the result.
                entry["model_gets"] = next(
                    (r for r in results if isinstance(r, str)), step["kwargs"].get("result")
                )
            if step["hook"] == "transform_llm_output":
                # agent/turn_finalizer.py: the first non-empty string a callback returns replaces
                # the answer; anything else keeps it.
                entry["final"] = next(
                    (r for r in results if isinstance(r, str) and r),
                    step["kwargs"].get("response_text"),
                )
            record(entry)
    # Hermes exits with the plugin's atexit handlers (the bridge closes there).
    atexit._run_exitfuncs()


if __name__ == "__main__":
    main()
