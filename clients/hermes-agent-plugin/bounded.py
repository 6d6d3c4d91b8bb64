"""Waiting on the bridge for a bounded time: Hermes' middleware has no timeout of its own, and
its bounded hooks stop waiting after ``plugins.hook_callback_timeout``, so the plugin answers
first."""

import threading


class TimedOut(Exception):
    """The work did not finish in time; the message says how long was waited."""


def hook_timeout():
    """Hermes' ``plugins.hook_callback_timeout`` in seconds (30 unless set; 0 or less: none)."""
    try:
        from hermes_cli.plugins import _resolve_hook_callback_timeout

        return float(_resolve_hook_callback_timeout())
    except Exception:  # a Hermes without it (0.19.0 has none), or no Hermes (tests)
        return 30.0


def deadline():
    """Seconds a check may take: inside Hermes' own limit, with room to answer before Hermes stops
    waiting; 30 s less that room when Hermes sets none."""
    limit = hook_timeout()
    if limit <= 0:
        limit = 30.0
    return max(0.5, min(limit - 2, limit * 0.8))


def run(work, seconds):
    """``work()``'s value, or its exception; ``TimedOut`` once ``seconds`` have gone (the worker is
    left to finish on its own: a bridge call cannot be taken back)."""
    box = {}

    def target():
        try:
            box["value"] = work()
        except BaseException as error:  # handed to the caller, whatever it is
            box["error"] = error

    worker = threading.Thread(target=target, name="hermes-extensions-check", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimedOut(f"the extensions did not answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]
