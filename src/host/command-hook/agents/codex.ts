import { homedir } from 'node:os';
import { join } from 'node:path';
import { codexHome } from '../../../policy/protected/agent-folders.js';
import type { ProjectScopedAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import { writeHookJson } from './hook-json.js';
import { gitRoot, withoutWorkdir, withWorkdir } from './tool-args.js';

/**
 * Codex sends every shell tool (argv arrays joined) as `Bash` with `{ command }`, and file edits
 * as `apply_patch` with the patch text in `command`; extensions see `bash` and `patch` with
 * `{ patch }`, as from any other agent. MCP tools (`mcp__server__tool`) pass through as named.
 */
export const codex: ProjectScopedAgent = {
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
  readEvent: (event) => event,
  writeAnswer: writeHookJson,
  blocksPrompt: true,
  rewriteDecision: 'allow',
  canAsk: false,
  afterToolEvents: ['PostToolUse'],
  endLoop: (reason) => ({ continue: false, stopReason: reason }),
  continueAtStop: (reason) => ({ decision: 'block', reason }),
  // Codex has no SessionEnd; a turn ends with Stop (or a new turn_id, see run-hook).
  endEvents: ['Stop'],
  // Not SubagentStart/SubagentStop: `codex exec` ends a subagent along with the main agent when
  // the main agent stops first, so its SubagentStop may never come, and a turn kept for it would
  // outlive the session. A subagent's calls still join the turn by their agent_id.
  // SessionStart decides nothing: the hook daemon loads the session's runtime then, so the first
  // prompt finds it warm (src/host/daemon/warm.ts).
  installEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  // `codex --version` prints `codex-cli 0.169.0`: doctor tells from it whether subagents are
  // covered (a hook reads the running version from its environment instead).
  versionProgram: 'codex',
  // Codex reads a matcher with anything but letters, digits, `_` and `|` as a regular expression;
  // versions that did so for "*" too found it invalid and skipped the hook. No matcher selects
  // every tool in every version.
  matchAllTools: undefined,
  matchesAllTools: (matcher) => matcher === undefined || matcher === '',
  settingsFormat: 'hooks-json',
  settingsFile: (project) =>
    project
      ? join(project, '.codex', 'hooks.json')
      : join(codexHome() ?? join(homedir(), '.codex'), 'hooks.json'),
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
