"""A plugin that probes how the stand-in (stand_in.py) runs tool middleware: plugin-tools.test.ts
loads it as a plugin's ``__init__.py``."""

seen = []


def register(ctx):
    ctx.register_middleware("tool_request", first)
    ctx.register_middleware("tool_request", broken)
    ctx.register_middleware("tool_request", second)
    ctx.register_middleware("tool_execution", outer)
    ctx.register_middleware("tool_execution", broken)
    ctx.register_middleware("tool_execution", inner)


def first(args, **_):
    seen.append(args["path"])
    return {"args": {"path": "first.py"}}


def broken(**_):
    raise RuntimeError("a callback that raises before next_call")


def second(args, **_):
    seen.append(args["path"])
    return {"args": {"path": "second.py", "seen": list(seen)}}


def outer(next_call, **_):
    return f"outer({next_call()})"


def inner(next_call, **_):
    result = next_call()
    try:
        next_call()
    except RuntimeError:
        return f"inner({result}, twice refused)"
    return "inner: next_call ran twice"
