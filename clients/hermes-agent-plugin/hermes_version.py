"""Which form of Hermes' plugin API this process has."""


def has_middleware(ctx):
    """Whether Hermes takes middleware (``ctx.register_middleware``, hermes_cli/plugins.py
    ``PluginContext``; v0.17.0 and later): then tool calls are rewritten through ``tool_request``
    and results through ``tool_execution``; older versions get the plugin hooks alone."""
    return callable(getattr(ctx, "register_middleware", None))
