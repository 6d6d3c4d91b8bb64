import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { wrappedHookCommand } from './hook-wrapper.js';

type Args = Record<string, unknown>;

/**
 * What differs between the agents whose command hooks `hermes hook <agent>` answers. Both speak
 * the JSON Claude Code defined (an event on stdin; `hookSpecificOutput` with a
 * `permissionDecision` on stdout; exit 1 a non-blocking error), but they name tools differently,
 * accept different decisions, and keep their hook settings in different files.
 */
export interface CommandHookAgent {
  name: 'claude-code' | 'codex';
  /** Shown in messages and given to extensions as the turn's `platform`. */
  title: string;
  /**
   * The agent's tool call as extensions see it by default. `cwd` is the event's working folder:
   * the agent's shell runs there, so a shell call gets it as `workdir` (a relative path in the
   * command means a path below it, not below the project root).
   */
  toolIn(name: string, input: Args, cwd?: string): { toolName: string; toolArgs: Args };
  /** Rewritten arguments, back in the agent's own names (its `updatedInput`). */
  toolOut(name: string, input: Args, args: Args): Args;
  /**
   * The `permissionDecision` that carries rewritten arguments nobody asked about, if any. Claude
   * Code gets none: its own permission flow (rules, mode, prompt) judges the call as rewritten,
   * since it evaluates its rules against a hook's `updatedInput`, so a rewrite neither approves a
   * call for the user nor asks about one the user's settings let run. Codex applies
   * `updatedInput` only with `allow` (and ignores a whole answer pairing it with anything else),
   * which there never skips its own sandbox or approval.
   */
  rewriteDecision: 'allow' | undefined;
  /**
   * Whether the agent takes `permissionDecision: "ask"` (an extension's `ask`: a person approves
   * the call). Claude Code does, and denies the call itself when nobody can answer (`claude -p`);
   * Codex refuses `ask` (the whole answer would be ignored, failing open), so there an ask is a
   * denial that says who asked and why.
   */
  canAsk: boolean;
  /**
   * The events after tool results where the agent takes context for its next model request:
   * `before_llm_call` runs there (Claude Code's `PostToolBatch`, once per model request; Codex
   * has no batch event, so its `PostToolUse`, once per tool result).
   */
  afterToolEvents: readonly string[];
  /**
   * The answer that ends the turn at such an event, as the agent accepts it there: Claude Code
   * stops the loop on `decision: "block"` (the reason stays in the conversation); Codex takes a
   * block there as feedback only and stops on `continue: false`.
   */
  endLoop(reason: string): Record<string, unknown>;
  /** Events that end the turn (its state goes). */
  endEvents: readonly string[];
  /**
   * Events `hermes hook install` registers. `PostToolUse` tells observers a tool's outcome (and
   * is where Codex runs `before_llm_call`); it never refuses anything, so it cannot hold a call up.
   */
  installEvents: readonly string[];
  /**
   * Install events an older agent cannot be given: the version from which its settings may name
   * them, and the command that prints the installed version (agent-version.ts).
   */
  eventsNeedVersion?: Readonly<Record<string, readonly [number, number, number]>>;
  versionProgram?: string;
  /**
   * The `PreToolUse` matcher that selects every tool, MCP tools included (undefined: no matcher
   * key), and whether a matcher already in the settings does. A guard registered for fewer tools
   * than it guards lets the others through.
   */
  matchAllTools: string | undefined;
  matchesAllTools(matcher: unknown): boolean;
  /** The settings file the hook entries go in, user-wide or in the project. */
  settingsFile(project: string | undefined): string;
  /**
   * The project's settings file that is the user's own and not shared (Claude Code's
   * `settings.local.json`); undefined when the agent has none.
   */
  localSettingsFile(project: string): string | undefined;
  /**
   * The hook's command line in a project's shared settings: no path of this machine, so the file
   * can be committed and runs for everyone who installed the project's dependencies. It runs
   * the project's own `node_modules/.bin/hermes` through hook-wrapper.ts, which answers with a
   * refusal when that cannot run.
   */
  projectCommand: string;
  /**
   * The project commands earlier versions installed, which ran hermes bare (a hook that could
   * not start let every call through): still this package's hook, so install replaces them and
   * uninstall removes them.
   */
  legacyProjectCommands: readonly string[];
  /** The folder `projectCommand` finds `node_modules/.bin/hermes` in, for a session in `project`. */
  projectCommandRoot(project: string): string;
  /** What the user must still do once the hook is installed, if anything. */
  afterInstall?: string;
  /**
   * The agent's tools that start a subagent: their `intercept_tool_call` carries `spawn`, whether
   * the subagent's own calls reach the hook (subagent-coverage.ts).
   */
  spawnTools: readonly string[];
}

/** Claude Code's tool names, mapped to the ones extensions see by default (workflow-guard's). */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
  Write: 'write',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'bash',
  Read: 'read',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'ls',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  Task: 'task',
  Agent: 'task',
  TodoWrite: 'todo_write',
};

/** Argument names Claude Code uses for the file a tool works on. */
const PATH_ARGUMENTS = ['file_path', 'notebook_path'];

export const claudeCode: CommandHookAgent = {
  name: 'claude-code',
  title: 'Claude Code',
  toolIn(name, input, cwd) {
    const args: Args = {};
    for (const [key, value] of Object.entries(input)) {
      args[PATH_ARGUMENTS.includes(key) && !('path' in input) ? 'path' : key] = value;
    }
    if (name === 'Bash') return { toolName: 'bash', toolArgs: withWorkdir(args, cwd) };
    return { toolName: CLAUDE_TOOLS[name] ?? name, toolArgs: args };
  },
  toolOut(name, input, args) {
    if (name === 'Bash') return withoutWorkdir(input, args);
    const pathKey = PATH_ARGUMENTS.find((key) => key in input);
    if (pathKey === undefined || 'path' in input) return args;
    const { path, ...rest } = args;
    return path === undefined ? rest : { ...rest, [pathKey]: path };
  },
  rewriteDecision: undefined,
  canAsk: true,
  afterToolEvents: ['PostToolBatch'],
  endLoop: (reason) => ({ decision: 'block', reason }),
  endEvents: ['Stop', 'SessionEnd'],
  // PostToolBatch is sent by Claude Code 2.1.118 and later; 2.1.101 and later skip an event they
  // do not know (so there before_llm_call runs at the prompt only); older ones ignored a settings
  // file naming one (docs/command-hooks.md). SubagentStart and SubagentStop keep a turn open for
  // its background subagents (subagent-lifecycle.ts); they are named only where an unknown event
  // cannot cost the whole file either.
  installEvents: [
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolBatch',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  eventsNeedVersion: {
    PostToolBatch: [2, 1, 101],
    SubagentStart: [2, 1, 101],
    SubagentStop: [2, 1, 101],
  },
  versionProgram: 'claude',
  // Claude Code documents "*", "" and no matcher alike as every tool.
  matchAllTools: '*',
  matchesAllTools: (matcher) => matcher === undefined || matcher === '' || matcher === '*',
  settingsFile: (project) =>
    project
      ? join(project, '.claude', 'settings.json')
      : join(homedir(), '.claude', 'settings.json'),
  localSettingsFile: (project) => join(project, '.claude', 'settings.local.json'),
  // Claude Code runs a hook through the shell with the project's root in $CLAUDE_PROJECT_DIR,
  // whatever folder the session is in (hook-wrapper.ts finds the project's hermes there).
  projectCommand: wrappedHookCommand('claude-code'),
  legacyProjectCommands: ['"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code'],
  projectCommandRoot: (project) => project,
  // `Task` was renamed `Agent`; both start a subagent.
  spawnTools: ['Agent', 'Task'],
};

/**
 * Codex sends every shell tool (argv arrays joined) as `Bash` with `{ command }`, and file edits
 * as `apply_patch` with the patch text in `command`; extensions see `bash` and `patch` with
 * `{ patch }`, as from any other agent. MCP tools (`mcp__server__tool`) pass through as named.
 */
export const codex: CommandHookAgent = {
  name: 'codex',
  title: 'Codex',
  toolIn(name, input, cwd) {
    if (name === 'Bash') return { toolName: 'bash', toolArgs: withWorkdir(input, cwd) };
    if (name === 'apply_patch') {
      const { command, ...rest } = input;
      return { toolName: 'patch', toolArgs: { ...rest, patch: command } };
    }
    return { toolName: withoutNamespace(name), toolArgs: input };
  },
  toolOut(name, input, args) {
    if (name === 'Bash') return withoutWorkdir(input, args);
    if (name !== 'apply_patch') return args;
    const { patch, ...rest } = args;
    return { ...rest, command: patch };
  },
  rewriteDecision: 'allow',
  canAsk: false,
  afterToolEvents: ['PostToolUse'],
  endLoop: (reason) => ({ continue: false, stopReason: reason }),
  // Codex has no SessionEnd; a turn ends with Stop (or a new turn_id, see run-hook).
  endEvents: ['Stop'],
  // Not SubagentStart/SubagentStop: `codex exec` ends a subagent along with the main agent when
  // the main agent stops first, so its SubagentStop may never come, and a turn kept for it would
  // outlive the session. A subagent's calls still join the turn by their agent_id.
  installEvents: ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  // `codex --version` prints `codex-cli 0.169.0`: doctor tells from it whether subagents are
  // covered (a hook reads the running version from its environment instead).
  versionProgram: 'codex',
  // Codex reads a matcher with anything but letters, digits, `_` and `|` as a regular expression;
  // versions that did so for "*" too found it invalid and skipped the hook. No matcher selects
  // every tool in every version.
  matchAllTools: undefined,
  matchesAllTools: (matcher) => matcher === undefined || matcher === '',
  settingsFile: (project) =>
    project
      ? join(project, '.codex', 'hooks.json')
      : join(process.env.CODEX_HOME || join(homedir(), '.codex'), 'hooks.json'),
  // Codex reads hooks from $CODEX_HOME and the project's .codex/ only.
  localSettingsFile: () => undefined,
  // Codex runs a hook with `$SHELL -lc` in the session's folder, which may be below the project
  // root, and tells it no root: git names it (Codex finds the project's .codex/ by the same .git);
  // outside a repository the session's folder is the one whose .codex/ Codex read
  // (hook-wrapper.ts).
  projectCommand: wrappedHookCommand('codex'),
  legacyProjectCommands: [
    '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/node_modules/.bin/hermes hook codex',
  ],
  projectCommandRoot: (project) => gitRoot(project) ?? project,
  // Codex skips a new or changed hook, silently, until the user trusts it.
  afterInstall:
    'Codex runs them once you trust them: open /hooks in Codex and trust the hermes hook.',
  // The default tool set's spawn_agent, and multi_agent_v2's, which Codex names with its
  // namespace glued on.
  spawnTools: ['spawn_agent', 'collaborationspawn_agent'],
};

/**
 * The namespaces Codex offers its subagent tools in: `multi_agent_v1` (found through its tool
 * search, the default) and `collaboration` (offered up front with `[features] multi_agent_v2`).
 */
const CODEX_AGENT_NAMESPACES = ['collaboration', 'multi_agent_v1'];

/**
 * Codex 0.169 names such a tool in its hook events by gluing the namespace to it, without a
 * separator (`collaborationspawn_agent`, `multi_agent_v1wait_agent`; the default spawn_agent alone
 * comes bare): extensions see `spawn_agent`, `wait_agent`, … whichever set is on, so a guard or a
 * user's `read_only_tools` names each tool once.
 */
function withoutNamespace(name: string): string {
  const namespace = CODEX_AGENT_NAMESPACES.find(
    (prefix) => name.startsWith(prefix) && name.length > prefix.length,
  );
  return namespace === undefined ? name : name.slice(namespace.length);
}

/** The nearest folder at or above `dir` that holds a `.git` (a folder, or a file in a worktree). */
function gitRoot(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** The event's folder as the shell call's `workdir`, unless the call names its own. */
function withWorkdir(args: Args, cwd: string | undefined): Args {
  return cwd === undefined || 'workdir' in args ? args : { ...args, workdir: cwd };
}

/** A rewrite goes back without the `workdir` the agent did not send. */
function withoutWorkdir(input: Args, args: Args): Args {
  if ('workdir' in input) return args;
  const { workdir: _, ...rest } = args;
  return rest;
}

export const COMMAND_HOOK_AGENTS: Readonly<Record<string, CommandHookAgent>> = {
  'claude-code': claudeCode,
  codex,
};
