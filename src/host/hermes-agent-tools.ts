import { resolve } from 'node:path';

type Args = Record<string, unknown>;

/**
 * The Hermes agent's tools under the names extensions see from every agent, in both of its forms:
 * its shell hooks (command-hook/agents/hermes-agent.ts) and its plugin, whose bridge calls say
 * `tool_dialect: "hermes-agent"` (bridge/dialect.ts). One mapping, so a guard written for `bash`
 * or `write` holds under either form. A tool not here keeps Hermes' name (`search_files`, MCP
 * tools…); `patch` is `edit` or `patch` by its `mode` (`hermesToolIn`).
 */
const HERMES_TOOLS: Readonly<Record<string, string>> = {
  terminal: 'bash',
  write_file: 'write',
  read_file: 'read',
  delegate_task: 'task',
  todo: 'todo_write',
};

/** Every name extensions may see for a Hermes tool: `patch` is two, by its `mode`. */
function frameworkNames(name: string): readonly string[] {
  if (name === 'patch') return ['edit', 'patch'];
  return [Object.hasOwn(HERMES_TOOLS, name) ? (HERMES_TOOLS[name] as string) : name];
}

/**
 * The folder a `terminal` call runs in, as extensions see it (the `bash` call's `workdir`): its
 * `workdir` from `cwd` (an absolute one as it is), else `cwd`. The shell hooks refuse a call
 * without an absolute `workdir` before any extension sees it (hermes-agent-calls.ts); the plugin
 * pins the command to this same folder (clients/hermes-agent-plugin/terminal.py, `judged_folder`).
 */
function judgedWorkdir(input: Args, cwd: string | undefined): unknown {
  const workdir = input.workdir;
  if (typeof workdir === 'string' && workdir !== '') {
    return cwd === undefined ? workdir : resolve(cwd, workdir);
  }
  return cwd;
}

/** A Hermes tool call as extensions see it. `cwd`: the folder the session runs in. */
export function hermesToolIn(
  name: string,
  input: Args,
  cwd: string | undefined,
): { toolName: string; toolArgs: Args } {
  if (name === 'terminal') {
    const workdir = judgedWorkdir(input, cwd);
    return { toolName: 'bash', toolArgs: workdir === undefined ? input : { ...input, workdir } };
  }
  if (name === 'patch') {
    // `mode: "replace"` (the default) edits a string in one file; `mode: "patch"` applies a
    // patch in Codex's format, as Codex's apply_patch does.
    const { mode, ...rest } = input;
    return { toolName: mode === 'patch' ? 'patch' : 'edit', toolArgs: rest };
  }
  return { toolName: frameworkNames(name)[0] as string, toolArgs: input };
}

/**
 * Arguments extensions rewrote (`args`), back in Hermes' form for the call `input` named `name`:
 * a `patch` keeps its `mode`; a `terminal` call whose `workdir` is still the one it was judged in
 * goes back with the `workdir` it had (none, when it had none), a moved one as the rewrite set it.
 */
export function hermesToolOut(
  name: string,
  input: Args,
  args: Args,
  cwd: string | undefined,
): Args {
  if (name === 'patch') return 'mode' in input ? { ...args, mode: input.mode } : args;
  if (name === 'terminal' && 'workdir' in args && args.workdir === judgedWorkdir(input, cwd)) {
    if ('workdir' in input) return { ...args, workdir: input.workdir };
    const { workdir: _, ...rest } = args;
    return rest;
  }
  return args;
}

/** The tools a Hermes request offers (its names) as extensions see them, each name once. */
export function hermesToolNames(offered: readonly string[]): string[] {
  return [...new Set(offered.flatMap(frameworkNames))];
}

/** Which of Hermes' `offered` tools stay when extensions keep `kept` (their names): those with a name kept. */
export function hermesToolsKept(offered: readonly string[], kept: readonly string[]): string[] {
  const keep = new Set(kept);
  return offered.filter((name) => frameworkNames(name).some((seen) => keep.has(seen)));
}

/** Which of Hermes' `offered` tools extensions took away, `hidden` (their names): those with no name left. */
export function hermesToolsHidden(offered: readonly string[], hidden: readonly string[]): string[] {
  const gone = new Set(hidden);
  return offered.filter((name) => frameworkNames(name).every((seen) => gone.has(seen)));
}
