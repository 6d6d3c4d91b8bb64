import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CommandHookAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import { writeHookJson } from './hook-json.js';
import { gitRoot, withoutWorkdir, withWorkdir } from './tool-args.js';

type Args = Record<string, unknown>;

/** OpenCode's tool names, mapped to the ones extensions see by default (workflow-guard's). */
const OPENCODE_TOOLS: Readonly<Record<string, string>> = {
  multiedit: 'edit',
  apply_patch: 'patch',
  list: 'ls',
  webfetch: 'web_fetch',
  websearch: 'web_search',
  todowrite: 'todo_write',
  todoread: 'todo_read',
};

/** OpenCode's patch tools take the patch text as `patchText`; extensions see `patch`. */
const PATCH_TOOLS = ['patch', 'apply_patch'];

/** The plugin's file name, in OpenCode's plugin folders (install writes it, uninstall removes it). */
export const OPENCODE_PLUGIN_FILE = 'hermes-extensions.js';

/**
 * OpenCode has no command hooks: its plugins are modules it loads into its own process. The plugin
 * `hermes hook install opencode` writes (src/host/opencode/plugin.ts) turns each of its plugin
 * hooks into the engine's event and runs `hermes hook opencode` with it: `chat.message` is
 * `UserPromptSubmit`, `tool.execute.before` `PreToolUse`, `tool.execute.after` `PostToolUse`
 * (observers, `transform_tool_result` and `before_llm_call` for the next request), the
 * session's `session.idle` `Stop`. So `readEvent` takes the event as it comes, and the answer is
 * the hook JSON, which the plugin acts on (docs/opencode.md).
 *
 * Tools: OpenCode names the file a tool works on `filePath` and a patch `patchText`; extensions
 * see `path` and `patch`, as from any other agent.
 */
export const opencode: CommandHookAgent = {
  name: 'opencode',
  title: 'OpenCode',
  toolIn(name, input, cwd) {
    if (name === 'bash') return { toolName: 'bash', toolArgs: withWorkdir(input, cwd) };
    const args: Args = {};
    for (const [key, value] of Object.entries(input)) args[renamedIn(name, key, input)] = value;
    return { toolName: OPENCODE_TOOLS[name] ?? name, toolArgs: args };
  },
  toolOut(name, input, args) {
    if (name === 'bash') return withoutWorkdir(input, args);
    const out: Args = {};
    for (const [key, value] of Object.entries(args)) {
      const own = Object.keys(input).find((sent) => renamedIn(name, sent, input) === key);
      out[own ?? key] = value;
    }
    return out;
  },
  readEvent: (event) => event,
  writeAnswer: writeHookJson,
  // A plugin that throws from `chat.message` stops the prompt before any model request
  // (measured with opencode-ai 1.18.33): the plugin throws on `decision: "block"`.
  blocksPrompt: true,
  // The plugin replaces the call's arguments with `updatedInput`, whatever the decision;
  // OpenCode's own permissions then judge the call as rewritten.
  rewriteDecision: undefined,
  // `permission.ask` is not called for a plugin's decision: nobody can be asked from here.
  canAsk: false,
  afterToolEvents: ['PostToolUse'],
  // The plugin sets `tool.execute.after`'s `output.output`, which OpenCode then hands the model
  // (checked with opencode-ai 1.18.33: the object the hook mutates is the tool's result).
  replacesResult: (text) => ({
    hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: text },
  }),
  // The plugin stops the session (OpenCode's abort) on `continue: false`.
  endLoop: (reason) => ({ continue: false, stopReason: reason }),
  endEvents: ['Stop'],
  installEvents: ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  eventTitles: {
    UserPromptSubmit: 'chat.message',
    PreToolUse: 'tool.execute.before',
    PostToolUse: 'tool.execute.after',
    Stop: 'session.idle',
  },
  // Every tool call reaches `tool.execute.before`: there is no matcher to get wrong.
  matchAllTools: undefined,
  matchesAllTools: () => true,
  settingsFormat: 'opencode-plugin',
  settingsFile: (project) =>
    project
      ? join(project, '.opencode', 'plugins', OPENCODE_PLUGIN_FILE)
      : join(
          process.env.XDG_CONFIG_HOME || join(homedir(), '.config'),
          'opencode',
          'plugins',
          OPENCODE_PLUGIN_FILE,
        ),
  localSettingsFile: () => undefined,
  projectCommand: wrappedHookCommand('opencode'),
  legacyProjectCommands: [],
  // OpenCode reads the .opencode/ folders from the session's folder up to the repository's root.
  projectCommandRoot: (project) => gitRoot(project) ?? project,
  // `task` starts a subagent in a session of its own, whose calls 1.18.33 sends to the plugin
  // (test/e2e/opencode.test.ts); but the hook cannot tell which version runs, so `task` is judged
  // as a tool it does not know rather than as a covered spawn.
  spawnTools: [],
};

/** The name extensions see for one of the call's argument names. */
function renamedIn(tool: string, key: string, input: Args): string {
  if (key === 'filePath' && !('path' in input)) return 'path';
  if (key === 'patchText' && PATCH_TOOLS.includes(tool) && !('patch' in input)) return 'patch';
  return key;
}
