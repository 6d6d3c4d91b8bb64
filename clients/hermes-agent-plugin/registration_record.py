"""What this plugin registered in the Hermes agent that loaded it, for ``hermes extensions doctor``.

``record(ctx, hooks, middleware)`` writes ``$HERMES_HOME/plugins/hermes-extensions/registered.json``
each time Hermes loads the plugin: Hermes' version (its installed package's, read from this very
process, so doctor never runs a program to learn it), the form the plugin runs in (``middleware``
where it registered middleware, Hermes 0.17.0 and later; ``hooks`` otherwise), the hook names and
middleware kinds, and when. The package reads it (src/host/hermes-agent/registration.ts) to say
what each hook point becomes in this Hermes. Installing the plugin again removes the folder, so a
record there was written by the plugin installed now.

Only a report: it is written atomically (a temporary file renamed over it) and never raises, so
a read-only home or an odd ``ctx`` cannot stop the plugin from loading.
"""

import datetime
import json
import os
import tempfile

FILE_NAME = "registered.json"
PLUGIN_NAME = "hermes-extensions"
SCHEMA = 1


def record(ctx, hooks, middleware):
    """Writes the record; returns its path, or None when it could not be written."""
    try:
        return _write(_record_path(), _content(ctx, hooks, middleware))
    except Exception:  # noqa: BLE001 - a report must never stop the plugin from loading
        return None


def _content(ctx, hooks, middleware):
    hooks = sorted({str(name) for name in hooks or ()})
    middleware = sorted({str(kind) for kind in middleware or ()})
    return {
        "schema": SCHEMA,
        "hermes_version": hermes_version(),
        "form": "middleware" if middleware else "hooks",
        "hooks": hooks,
        "middleware": middleware,
        # Where Hermes offers middleware at all, even when none was registered (doctor says why).
        "offers_middleware": callable(getattr(ctx, "register_middleware", None)),
        "pid": os.getpid(),
        "recorded_at": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z"),
    }


def hermes_version():
    """The version of the Hermes agent running this process: its distribution's metadata, else
    ``hermes_cli.__version__``; None when neither says."""
    try:
        from importlib import metadata

        return metadata.version("hermes-agent")
    except Exception:  # noqa: BLE001 - any failure means "not known"
        pass
    try:
        import hermes_cli

        version = getattr(hermes_cli, "__version__", None)
        return version if isinstance(version, str) and version else None
    except Exception:  # noqa: BLE001
        return None


def _hermes_home():
    """Hermes' own home (its profile's, when it runs one), as Hermes resolves it."""
    try:
        from hermes_constants import get_hermes_home

        return str(get_hermes_home())
    except Exception:  # noqa: BLE001 - outside Hermes (a test's stand-in): the environment's
        home = os.environ.get("HERMES_HOME")
        return home if home else os.path.join(os.path.expanduser("~"), ".hermes")


def _record_path():
    return os.path.join(_hermes_home(), "plugins", PLUGIN_NAME, FILE_NAME)


def _write(path, content):
    folder = os.path.dirname(path)
    # Only into a copy the package's installer made: a plugin run from elsewhere has nothing to
    # report, and a folder linked to the package's own is shared by every home linked to it.
    if not os.path.isdir(folder) or os.path.islink(folder):
        return None
    handle, temporary = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(content, file, indent=2)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path
