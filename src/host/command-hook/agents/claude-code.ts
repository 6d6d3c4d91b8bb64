import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { claudeConfigDir } from '../../../policy/protected/agent-folders.js';
import type { ProjectScopedAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import { claudeToolResult } from './claude-code-results.js';
import { LEFT_TO_CURSOR, leftToCursor } from './cursor-claude-hooks.js';
import { writeHookJson } from './hook-json.js';
import { withoutWorkdir, withWorkdir } from './tool-args.js';

type Args = Record<string, unknown>;

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

export const claudeCode: ProjectScopedAgent = {
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
  // Claude Code sets CLAUDE_PROJECT_DIR, the folder it was started in, in each hook's environment
  // after everything else, the `env` of settings files included (checked with 2.1.330), so a
  // project's .claude/settings.json cannot move it; a later `cd` does not either.
  sessionFolder: (_event, env) => {
    const dir = env.CLAUDE_PROJECT_DIR;
    return dir !== undefined && isAbsolute(dir) ? dir : undefined;
  },
  toolOut(name, input, args) {
    if (name === 'Bash') return withoutWorkdir(input, args);
    const pathKey = PATH_ARGUMENTS.find((key) => key in input);
    if (pathKey === undefined || 'path' in input) return args;
    const { path, ...rest } = args;
    return path === undefined ? rest : { ...rest, [pathKey]: path };
  },
  // Cursor runs this hook too; where its own hermes hook answers, this one does not (cursor-claude-hooks.ts).
  readEvent: (event) => (leftToCursor(event) ? LEFT_TO_CURSOR : event),
  writeAnswer: writeHookJson,
  blocksPrompt: true,
  rewriteDecision: undefined,
  canAsk: true,
  afterToolEvents: ['PostToolBatch'],
  endLoop: (reason) => ({ decision: 'block', reason }),
  continueAtStop: (reason) => ({ decision: 'block', reason }),
  replaceToolResult: claudeToolResult,
  failureContext: true,
  // Set for its SessionStart hooks alone (a file where a hook may leave variables for later shell
  // calls; checked with 2.1.330): the session's other hooks do not have it.
  sessionStartOnlyEnv: ['CLAUDE_ENV_FILE'],
  endEvents: ['Stop', 'SessionEnd'],
  // PostToolBatch is sent by Claude Code 2.1.118 and later; 2.1.101 and later skip an event they
  // do not know (so there before_llm_call runs at the prompt only); older ones ignored a settings
  // file naming one (docs/command-hooks.md). SubagentStart and SubagentStop keep a turn open for
  // its background subagents (subagent-lifecycle.ts); PostToolUseFailure carries a failed tool's
  // error, where transform_tool_result's additions reach the model (failure-advice.ts); they are
  // named only where an unknown event cannot cost the whole file either. SessionStart (1.0.62 and
  // later) decides nothing: the hook daemon loads the session's runtime then, so the first prompt
  // finds it warm (src/host/daemon/warm.ts).
  installEvents: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PostToolBatch',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  eventsNeedVersion: {
    PostToolUseFailure: [2, 1, 101],
    PostToolBatch: [2, 1, 101],
    SubagentStart: [2, 1, 101],
    SubagentStop: [2, 1, 101],
  },
  versionProgram: 'claude',
  // Claude Code documents "*", "" and no matcher alike as every tool.
  matchAllTools: '*',
  matchesAllTools: (matcher) => matcher === undefined || matcher === '' || matcher === '*',
  settingsFormat: 'hooks-json',
  // Claude Code's config folder is `$CLAUDE_CONFIG_DIR` when set, in place of `~/.claude`.
  settingsFile: (project) =>
    project
      ? join(project, '.claude', 'settings.json')
      : join(claudeConfigDir() ?? join(homedir(), '.claude'), 'settings.json'),
  localSettingsFile: (project) => join(project, '.claude', 'settings.local.json'),
  // Claude Code runs a hook through the shell with the project's root in $CLAUDE_PROJECT_DIR,
  // whatever folder the session is in (hook-wrapper.ts finds the project's hermes there).
  projectCommand: wrappedHookCommand('claude-code'),
  legacyProjectCommands: ['"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code'],
  projectCommandRoot: (project) => project,
  // `Task` was renamed `Agent`; both start a subagent.
  spawnTools: ['Agent', 'Task'],
};
