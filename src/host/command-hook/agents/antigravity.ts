import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CommandHookAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import { readAntigravityEvent } from './antigravity-event.js';
import { writeAntigravityAnswer } from './antigravity-wire.js';
import { gitRoot, withoutWorkdir, withWorkdir } from './tool-args.js';

type Args = Record<string, unknown>;

/**
 * Google's Antigravity CLI (`agy`), through a plugin whose `hooks.json` runs the hook.
 *
 * What each fact rests on — all third-party: Antigravity's own hook reference ships inside the
 * closed-source CLI (docs/antigravity.md lists them with the table of hook points):
 * - safe-chains' `targets/agy` (verified on agy 1.1.2): the event is protobuf JSON
 *   (`toolCall.name`, `toolCall.args.CommandLine`, `workspacePaths`, `conversationId`, `stepIdx`,
 *   `modelName`); the answer `{decision, reason}` with `allow`, `deny`, `ask`, `force_ask`; `deny`
 *   holds and its reason reaches the model; `force_ask` asks even past "always allow"; `allow`
 *   does not skip Antigravity's own approval; a missing or malformed decision fails closed.
 * - skillsaw's rule `antigravity-hooks-valid` (measured on agy 1.1.25): the file's top-level keys
 *   are hook names, each an object of events; `PreToolUse` holds `{matcher, hooks: [{type:
 *   "command", command, timeout}]}` groups, `""` and `"*"` match every tool; one bad key (a
 *   fractional timeout, an unknown handler type) drops the whole file, silently.
 * - ToolAhead 0.7.0's release notes (agy 1.1.11): the CLI reads lifecycle hooks only from
 *   installed plugins (a workspace's `.agents/hooks.json` was inert), with `plugin.json` and
 *   `hooks.json` at the plugin's root; the event's name is not in the payload.
 * - antigravity-cli issue #640 (agy 1.1.4): a block of `invoke_subagent` is ignored, the subagent
 *   starts anyway.
 *
 * So only `PreToolUse` is installed (no event name to tell it from another), every answer names
 * a decision, a rewrite is a refusal (agents/antigravity-wire.ts), and the subagent tool is a
 * spawn that is never covered: a guard that refuses it is told why, though agy may start it.
 */
export const antigravity: CommandHookAgent = {
  name: 'antigravity',
  title: 'Antigravity',
  toolIn(name, input, cwd) {
    const mapped = AGY_TOOLS[name];
    if (mapped === undefined) return { toolName: name, toolArgs: input };
    const args: Args = {};
    for (const [key, value] of Object.entries(input)) args[mapped.args[key] ?? key] = value;
    if (mapped.tool === 'bash') return { toolName: 'bash', toolArgs: withWorkdir(args, cwd) };
    return { toolName: mapped.tool, toolArgs: args };
  },
  toolOut(name, input, args) {
    // Antigravity takes no rewritten arguments (the wire refuses a rewrite); observers and the
    // refusal still see them in its own names.
    const mapped = AGY_TOOLS[name];
    if (mapped === undefined) return args;
    const back = mapped.tool === 'bash' ? withoutWorkdir(input, args) : args;
    const names = Object.fromEntries(Object.entries(mapped.args).map(([k, v]) => [v, k]));
    return Object.fromEntries(Object.entries(back).map(([k, v]) => [names[k] ?? k, v]));
  },
  readEvent: readAntigravityEvent,
  writeAnswer: writeAntigravityAnswer,
  // No prompt event is installed: a turn is the conversation, and a block of the prompt would
  // have to refuse every call instead (pre-tool-use.ts) — it never comes.
  blocksPrompt: false,
  rewriteDecision: undefined,
  canAsk: true,
  afterToolEvents: [],
  endLoop: (reason) => ({ decision: 'block', reason }),
  endEvents: ['Stop'],
  installEvents: ['PreToolUse'],
  matchAllTools: '*',
  matchesAllTools: (matcher) => matcher === undefined || matcher === '' || matcher === '*',
  settingsFormat: 'antigravity-plugin',
  // The plugin where `agy plugin install` puts one (user-wide), or in the project's
  // customization root, where agy loads a plugin in place.
  settingsFile: (project) =>
    project
      ? join(project, '.agents', 'plugins', PLUGIN, 'hooks.json')
      : join(homedir(), '.gemini', 'config', 'plugins', PLUGIN, 'hooks.json'),
  localSettingsFile: () => undefined,
  projectCommand: wrappedHookCommand('antigravity'),
  legacyProjectCommands: [],
  projectCommandRoot: (project) => gitRoot(project) ?? project,
  spawnTools: ['invoke_subagent'],
};

/** The plugin's name: its folder, its `plugin.json` name and its hook's name in `hooks.json`. */
export const PLUGIN = 'hermes-extensions';

/**
 * Antigravity's tools (agy's own names, as `toolCall.name` sends them) as extensions see them,
 * with their arguments' names. From safe-chains (`run_command` with `CommandLine`), ToolAhead's
 * hook (`view_file`, `write_to_file` with `TargetFile` and `CodeContent`,
 * `replace_file_content`, `multi_replace_file_content`, `grep_search`, `find_by_name`) and
 * skillsaw (`browser_*`, passed through as named). Not confirmed by a source: `edit_file`,
 * `list_dir` and the argument names `AbsolutePath`, `Query`, `Pattern`, `DirectoryPath`.
 */
const AGY_TOOLS: Readonly<Record<string, { tool: string; args: Record<string, string> }>> = {
  run_command: { tool: 'bash', args: { CommandLine: 'command', Cwd: 'workdir' } },
  view_file: { tool: 'read', args: { AbsolutePath: 'path', TargetFile: 'path' } },
  write_to_file: { tool: 'write', args: { TargetFile: 'path', CodeContent: 'content' } },
  replace_file_content: { tool: 'edit', args: { TargetFile: 'path' } },
  multi_replace_file_content: { tool: 'edit', args: { TargetFile: 'path' } },
  edit_file: { tool: 'edit', args: { TargetFile: 'path' } },
  grep_search: { tool: 'grep', args: { Query: 'pattern' } },
  find_by_name: { tool: 'glob', args: { Pattern: 'pattern' } },
  list_dir: { tool: 'ls', args: { DirectoryPath: 'path' } },
  invoke_subagent: { tool: 'task', args: {} },
};
