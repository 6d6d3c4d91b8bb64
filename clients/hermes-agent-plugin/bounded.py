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


def hook_deadline():
    """Seconds a bounded hook's check may take: inside Hermes' own limit, with room to answer
    before Hermes stops waiting; None when Hermes sets no limit (0 or less)."""
    limit = hook_timeout()
    return None if limit <= 0 else _within(limit)


def deadline():
    """Seconds a middleware's check may take (Hermes bounds none): as a hook's, and as with the
    default 30 s limit when Hermes sets none."""
    limit = hook_timeout()
    return _within(limit if limit > 0 else 30.0)


def _within(limit):
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
