"""hermes-extensions as a Hermes agent plugin (standard library only).

Hermes loads this folder from ``$HERMES_HOME/plugins/hermes-extensions/`` once
``hermes-extensions`` is in ``plugins.enabled`` of ``$HERMES_HOME/config.yaml`` (the package's
installer does both: src/host/hermes-agent/plugin-install.ts), and calls ``register(ctx)``.
What each hook point becomes: hooks.py, and docs/hermes-agent.md, "The Python plugin".
"""

import argparse
import subprocess
import sys

from . import locate, registration_record
from .hooks import OBSERVED, Hooks


def register(ctx):
    hooks = Hooks()
    ctx.register_hook("pre_llm_call", hooks.pre_llm_call)
    # In this order: Hermes takes a modify from the first and an approve from the second.
    ctx.register_hook("pre_tool_call", hooks.pre_tool_call)
    ctx.register_hook("pre_tool_call", hooks.pre_tool_call_approval)
    ctx.register_hook("post_tool_call", hooks.post_tool_call)
    # Hermes hands the model the first string a callback returns: a plugin registered before
    # this one can still replace the result (docs/hermes-agent.md, Tool results).
    ctx.register_hook("transform_tool_result", hooks.transform_tool_result)
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
    # What Hermes now runs, for `hermes extensions doctor` (registration_record.py): the hooks
    # registered above, and no middleware yet.
    hooks_registered = [
        "pre_llm_call",
        "pre_tool_call",
        "post_tool_call",
        "transform_tool_result",
        "post_llm_call",
        "on_session_end",
        *OBSERVED,
    ]
    registration_record.record(ctx, hooks_registered, [])


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
