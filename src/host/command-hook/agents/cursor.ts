import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CommandHookAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import { cursorSessionFolder, readCursorEvent } from './cursor-event.js';
import { writeCursorAnswer } from './cursor-wire.js';
import { gitRoot, withoutWorkdir, withWorkdir } from './tool-args.js';

type Args = Record<string, unknown>;

/**
 * Cursor's agent (the IDE's and `cursor-agent`'s), through `.cursor/hooks.json` version 1.
 *
 * What each fact rests on (docs/cursor.md lists them with the table of hook points):
 * - Cursor's own hooks documentation (Agent, Hooks): the file
 *   `{"version": 1, "hooks": {"<event>": [{"command": …}]}}`, user-wide `~/.cursor/hooks.json`
 *   and the project's `.cursor/hooks.json`; camelCase events, among them `beforeSubmitPrompt`,
 *   `preToolUse` (every tool, with `tool_name`, `tool_input`, `tool_use_id`), `postToolUse`,
 *   `postToolUseFailure`, `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`,
 *   `subagentStart`, `subagentStop`, `stop`, `sessionEnd`; every event carries
 *   `conversation_id`, `generation_id`, `workspace_roots`, `cursor_version`; a before-hook answers
 *   `{permission: "allow" | "deny" | "ask", user_message, agent_message}`,
 *   `beforeSubmitPrompt` `{continue, user_message}`.
 * - Its reference page on third-party hooks: Cursor also runs
 *   Claude Code's hooks from `.claude/settings*.json` and `~/.claude/settings.json`, all matching
 *   hooks from every source, a Cursor file's answer winning a conflict (cursor-claude-hooks.ts).
 * - Third-party references, not Cursor's own: `updated_input` rewrites a `preToolUse` call (the
 *   Cursor adapters of agent-hooks-bridge and rtk); `beforeSubmitPrompt` takes no context
 *   (Cupcake's Cursor reference); `permission: "allow"` does not skip Cursor's own approval, and
 *   `deny` holds (safe-chains, verified on cursor-agent 2026.07.16); `ask` is taken as a deny by
 *   Cursor 2.4.21 and later (agent-hooks-bridge) — a refusal either way, so it fails closed.
 *
 * Every tool call is judged once, at `preToolUse`, which Cursor sends for every tool (MCP tools
 * included): the per-kind `beforeShellExecution`, `beforeMCPExecution` and `beforeReadFile` are
 * not installed, since a shell call would reach both and be decided twice (a second decision under
 * one id is a refusal, decisions.ts). Cursor's tool names are in `CURSOR_TOOLS`.
 */
export const cursor: CommandHookAgent = {
  name: 'cursor',
  title: 'Cursor',
  toolIn(name, input, cwd) {
    const args = withPath(input);
    if (name === 'Shell') return { toolName: 'bash', toolArgs: withWorkdir(args, cwd) };
    return { toolName: CURSOR_TOOLS[name] ?? name, toolArgs: args };
  },
  toolOut(name, input, args) {
    if (name === 'Shell') return withoutWorkdir(input, args);
    const pathKey = PATH_ARGUMENTS.find((key) => key in input);
    if (pathKey === undefined || 'path' in input) return args;
    const { path, ...rest } = args;
    return path === undefined ? rest : { ...rest, [pathKey]: path };
  },
  readEvent: readCursorEvent,
  sessionFolder: cursorSessionFolder,
  writeAnswer: writeCursorAnswer,
  blocksPrompt: true,
  // Cursor's answers have no field for context (cursor-wire.ts).
  takesContext: false,
  // `updated_input` rides on `permission: "allow"`, which Cursor does not take as the user's
  // approval: its own allowlist still asks (safe-chains' finding above).
  rewriteDecision: 'allow',
  canAsk: true,
  // Cursor takes no context before a model request (beforeSubmitPrompt has no field for it, and
  // postToolUse's is third-party lore): before_llm_call runs at the prompt, its blocks hold, its
  // injections cannot be delivered (docs/cursor.md).
  afterToolEvents: [],
  endLoop: (reason) => ({ decision: 'block', reason }),
  endEvents: ['Stop', 'SessionEnd'],
  // Not subagentStart/subagentStop: what they carry (which subagent, its calls' ids) is not
  // documented; a subagent's calls reach preToolUse like any other and join the conversation's
  // turn. Not the before* events: see above.
  installEvents: ['beforeSubmitPrompt', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'stop'],
  // No matcher selects every tool; "*" and "" are taken the same way.
  matchAllTools: undefined,
  matchesAllTools: (matcher) => matcher === undefined || matcher === '' || matcher === '*',
  settingsFormat: 'cursor-hooks-json',
  settingsFile: (project) =>
    project ? join(project, '.cursor', 'hooks.json') : join(homedir(), '.cursor', 'hooks.json'),
  localSettingsFile: () => undefined,
  // Cursor runs a project's hooks in the project's root folder: the wrapper looks for the
  // project's hermes there, or at the root of the repository it is in (hook-wrapper.ts).
  projectCommand: wrappedHookCommand('cursor'),
  legacyProjectCommands: [],
  projectCommandRoot: (project) => gitRoot(project) ?? project,
  // Whether a subagent's calls reach the hook, and as whose, is not known: a spawn is not
  // covered (subagent-coverage.ts), and workflow-guard refuses one before a plan.
  spawnTools: ['Task'],
};

/**
 * Cursor's tool names as `preToolUse` sends them, mapped to the ones extensions see by default
 * (workflow-guard's). `Shell`, `Read`, `Write`, `Grep`, `Delete`, `Task` and MCP tools are named in
 * Cursor's matcher examples; `Edit`, `StrReplace`, `MultiEdit`, `Glob`, `LS`, `WebFetch`,
 * `WebSearch` and `TodoWrite` are not confirmed by a source (named as Claude Code names its own,
 * whose tool names Cursor's matchers share).
 */
const CURSOR_TOOLS: Readonly<Record<string, string>> = {
  Shell: 'bash',
  Read: 'read',
  Write: 'write',
  Edit: 'edit',
  StrReplace: 'edit',
  MultiEdit: 'edit',
  Delete: 'delete',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'ls',
  Task: 'task',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  TodoWrite: 'todo_write',
};

/** Argument names the file tools may use for the file they work on. */
const PATH_ARGUMENTS = ['file_path', 'target_file', 'path'];

/** The file's argument as `path`, as extensions name it, unless the call has a `path` already. */
function withPath(input: Args): Args {
  const key = PATH_ARGUMENTS.find((candidate) => candidate in input);
  if (key === undefined || key === 'path') return input;
  const args: Args = {};
  for (const [name, value] of Object.entries(input)) args[name === key ? 'path' : name] = value;
  return args;
}
