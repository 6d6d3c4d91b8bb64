"""Where the hermes-extensions package is, and how this plugin runs its command line.

The plugin runs in the Hermes agent's Python process, from one of two places:

1. a copy in ``$HERMES_HOME/plugins/hermes-extensions/`` that the package's installer made
   (src/host/hermes-agent/plugin-install.ts): its ``install.json`` names the package's folder and
   the ``node`` that installed it, since a Hermes started from a desktop entry or a service may
   not have that ``node`` on its PATH;
2. the package's own ``clients/hermes-agent-plugin/`` (a checkout, or
   ``$HERMES_HOME/plugins/hermes-extensions`` linked to it): the package is two folders up.

The command is always the package's ``bin/hermes.js`` by path, never ``hermes`` looked up on the
PATH: that may be the Hermes agent itself.
"""

import importlib.util
import json
import os
import shutil
import sys

# Resolved, so that a link to the package's own folder finds the package two folders up.
PLUGIN_DIR = os.path.dirname(os.path.realpath(__file__))
INSTALL_RECORD = os.path.join(PLUGIN_DIR, "install.json")
# What every "cannot find" message ends with: how to get a working install again.
REINSTALL = (
    "install the plugin again from the hermes-extensions package "
    "(its docs/hermes-agent.md, \"The Python plugin\")"
)


class NotFound(Exception):
    """The package, its command line or node is not where this plugin looks; the message says
    where it looked and how to fix it."""


def _install_record():
    if not os.path.isfile(INSTALL_RECORD):
        return None
    try:
        with open(INSTALL_RECORD, encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError) as error:
        raise NotFound(f"cannot read {INSTALL_RECORD}: {error}; {REINSTALL}")
    if not isinstance(record, dict):
        raise NotFound(f"{INSTALL_RECORD} does not hold a JSON object; {REINSTALL}")
    return record


def _is_package(folder):
    return os.path.isfile(os.path.join(folder, "bin", "hermes.js")) and os.path.isfile(
        os.path.join(folder, "package.json")
    )


def package_root():
    """The hermes-extensions package this plugin belongs to."""
    record = _install_record()
    if record is not None:
        root = record.get("package_root")
        if isinstance(root, str) and _is_package(root):
            return root
        raise NotFound(
            f"the hermes-extensions package that {INSTALL_RECORD} names ({root}) is not there "
            f"any more (no bin/hermes.js); {REINSTALL}"
        )
    around = os.path.dirname(os.path.dirname(PLUGIN_DIR))
    if _is_package(around):
        return around
    raise NotFound(
        f"this plugin ({PLUGIN_DIR}) has no install.json and is not inside the "
        f"hermes-extensions package; {REINSTALL}"
    )


def node():
    """The ``node`` to run the package with: the recorded one while it is there, else the PATH's."""
    record = _install_record() or {}
    recorded = record.get("node")
    if isinstance(recorded, str) and os.path.isfile(recorded) and os.access(recorded, os.X_OK):
        return recorded
    found = shutil.which("node")
    if found:
        return found
    where = f"not at {recorded} (recorded at install) and " if recorded else ""
    raise NotFound(
        f"node was {where}not found on the PATH; install Node.js 20.19 or later, or {REINSTALL}"
    )


def cli_command():
    """The package's command line: ``node <package>/bin/hermes.js``."""
    return [node(), os.path.join(package_root(), "bin", "hermes.js")]


def bridge_command():
    return cli_command() + ["extensions", "serve", "--stdio"]


_client_module = None


def client_module():
    """The package's stdlib client of the bridge (clients/python/), loaded from the package by
    path so that the plugin and the bridge it starts are always of one version."""
    global _client_module
    if _client_module is None:
        path = os.path.join(package_root(), "clients", "python", "hermes_extensions_client.py")
        if not os.path.isfile(path):
            raise NotFound(f"the bridge client is missing: {path}; {REINSTALL}")
        name = "_hermes_extensions_plugin_client"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _client_module = module
    return _client_module
