"""hermes-extensions as a Hermes agent plugin (standard library only).

Hermes loads this folder from ``$HERMES_HOME/plugins/hermes-extensions/`` once
``hermes-extensions`` is in ``plugins.enabled`` of ``$HERMES_HOME/config.yaml`` (the package's
installer does both: src/host/hermes-agent/plugin-install.ts), and calls ``register(ctx)``.
What each hook point becomes: hooks.py, and docs/hermes-agent.md, "The Python plugin".
"""

import argparse
import subprocess
import sys

from . import locate, registration_record, tool_middleware
from .hermes_version import has_middleware
from .hooks import OBSERVED, Hooks
from .llm_middleware import LlmMiddleware


def register(hermes_ctx):
    hooks = Hooks()
    llm = LlmMiddleware(hooks)
    # Every registration goes through this, so the record doctor reads lists what Hermes now runs.
    ctx = _Recording(hermes_ctx)
    # Hermes 0.17.0 and later take middleware (hermes_version.py): there the model side runs at
    # every request (llm_middleware.py) and the tool side around every call (tool_middleware.py);
    # an older Hermes gets the input chains once per turn, at pre_llm_call, as context, and the
    # tool chains through the hooks alone (hooks.py).
    middleware = has_middleware(hermes_ctx)
    if middleware:
        ctx.register_hook("pre_llm_call", llm.pre_llm_call)
        ctx.register_middleware("llm_request", llm.llm_request)
        ctx.register_middleware("llm_execution", llm.llm_execution)
        tool_middleware.register(ctx, hooks)
    else:
        ctx.register_hook("pre_llm_call", hooks.pre_llm_call)
    ctx.register_hook("transform_llm_output", llm.transform_llm_output)
    # In this order: Hermes takes a modify from the first and an approve from the second.
    ctx.register_hook("pre_tool_call", hooks.pre_tool_call)
    ctx.register_hook("pre_tool_call", hooks.pre_tool_call_approval)
    ctx.register_hook("post_tool_call", hooks.results.post_tool_call)
    if not middleware:
        # Hermes hands the model the first string a callback returns: a plugin registered before
        # this one can still replace the result (docs/hermes-agent.md, Tool results).
        ctx.register_hook("transform_tool_result", hooks.results.transform_tool_result)
    # A subagent's calls are judged in the turn that started it (agents.py).
    ctx.register_hook("subagent_start", hooks.agents.subagent_start)
    ctx.register_hook("post_llm_call", hooks.post_llm_call)
    ctx.register_hook("on_session_end", hooks.on_session_end)
    for event in OBSERVED:
        ctx.register_hook(event, hooks.observer(event))
    ctx.register_cli_command(
        name="extensions",
        help="hermes-extensions: list, doctor, enable, disable, test, init, trust",
        setup_fn=_setup_cli,
        handler_fn=_run_cli,
        description="Runs `hermes-extensions extensions …` of the hermes-extensions package.",
    )
    # What Hermes now runs, for `hermes extensions doctor` (registration_record.py).
    registration_record.record(hermes_ctx, ctx.hooks, ctx.middleware)


class _Recording:
    """Hermes' plugin context, noting each hook and middleware kind registered through it."""

    def __init__(self, ctx):
        self._ctx = ctx
        self.hooks = []
        self.middleware = []

    def register_hook(self, name, callback):
        self.hooks.append(name)
        return self._ctx.register_hook(name, callback)

    def register_middleware(self, kind, callback):
        self.middleware.append(kind)
        return self._ctx.register_middleware(kind, callback)

    def __getattr__(self, name):
        return getattr(self._ctx, name)


def _setup_cli(parser):
    parser.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        help="a hermes extensions command and its options (list, doctor, … ; --help lists them)",
    )


def _run_cli(args):
    """``hermes extensions …`` in the Hermes CLI: this package's command line, with the same
    arguments, output and exit code."""
    try:
        command = locate.cli_command()
    except locate.NotFound as error:
        print(f"hermes extensions: {error}", file=sys.stderr)
        raise SystemExit(2)
    code = subprocess.call(command + ["extensions"] + list(getattr(args, "args", None) or []))
    if code != 0:
        raise SystemExit(code)
    return 0
