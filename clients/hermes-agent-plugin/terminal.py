"""A ``terminal`` call runs in the folder it was judged in (docs/hermes-agent.md, "A terminal call
runs where it was judged"; the shell hooks do the same in src/host/command-hook/agents/hermes-agent.ts).

Hermes' terminal keeps the folder an earlier ``cd`` left it in, and no hook or middleware tells
which that is, while the chains judge the command as running in the call's ``workdir`` (below the
bridge's folder) or the bridge's folder itself. The command is therefore wrapped so it starts there.
"""

import os
import shlex


def judged_folder(args, cwd):
    """The folder a terminal call was judged to run in: its ``workdir`` (below ``cwd``), else ``cwd``."""
    workdir = args.get("workdir")
    if isinstance(workdir, str) and workdir:
        return os.path.join(cwd, workdir)  # an absolute workdir stays as it is
    return cwd


def pinned(tool_name, args, cwd):
    """``args`` with a terminal command put in its judged folder; any other call as it is. A
    ``workdir`` the call named stays (the ``cd`` runs after it)."""
    command = args.get("command") if isinstance(args, dict) else None
    if tool_name != "terminal" or not isinstance(command, str) or not cwd:
        return args
    folder = shlex.quote(judged_folder(args, cwd))
    return {**args, "command": f"cd -- {folder} && {{\n{command}\n}}"}
