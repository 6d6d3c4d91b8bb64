"""Whether Hermes would ask a person about a plugin's ``approve`` directive.

An extension's ``ask`` means a person decides. Hermes sends a plugin's ``approve`` to its approval
gate (hermes_cli/plugins.py ``get_pre_tool_call_block_message``, tools/approval.py
``request_tool_approval`` and ``_run_approval_gate``), which approves without asking anyone in
two cases: yolo mode (``--yolo`` and ``hermes -z`` set ``HERMES_YOLO_MODE``, read once at start;
or a session's ``/yolo``), and a cron session whose ``approvals.cron_mode`` is ``approve``.
There the plugin refuses the call instead, saying why. Where nobody can answer otherwise (no
interactive user, no gateway) Hermes' gate refuses by itself.
"""

import os

TRUTHY = {"1", "true", "yes", "on"}


def unasked_reason():
    """Why Hermes would approve a call without asking a person, or None when it would ask (or
    refuse). Where Hermes' own flags cannot be read, yolo mode is read from the environment and a
    cron session is taken to approve."""
    try:
        from tools import approval
    except Exception:  # no Hermes (tests), or a Hermes without the gate: the environment alone
        approval = None
    if _yolo(approval):
        return (
            "Hermes runs in yolo mode here (--yolo, or hermes -z: HERMES_YOLO_MODE), where it "
            "approves every call without asking anyone"
        )
    if _cron_approves(approval):
        return (
            "this is a cron session whose approvals.cron_mode is approve, where Hermes approves "
            "every call without asking anyone"
        )
    return None


def _yolo(approval):
    if approval is not None:
        try:
            # tools/approval.py: the process-wide flag, frozen at import, and a session's /yolo.
            return bool(approval._YOLO_MODE_FROZEN or approval.is_current_session_yolo_enabled())
        except Exception:
            pass
    return os.environ.get("HERMES_YOLO_MODE", "").strip().lower() in TRUTHY


def _cron_approves(approval):
    if os.environ.get("HERMES_CRON_SESSION", "").strip().lower() not in TRUTHY:
        return False
    if approval is None:
        return False  # no gate to approve it: nothing runs unasked
    try:
        if approval._is_interactive_cli() or approval._is_gateway_approval_context():
            return False
        return approval._get_cron_approval_mode() == "approve"
    except Exception:
        return True  # cannot tell: refused rather than run unasked
