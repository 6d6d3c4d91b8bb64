// One policy, every agent: examples/policies/no-secrets.mjs, loaded once from $HERMES_HOME, asked
// by each of six agents' own hook about the same shell command (`cat .env`), in that agent's own
// event and read back from its own answer. `hermes hook install <agent>` makes each agent run
// these.
// Run it: node examples/every-agent.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from './support/throwaway-setup.mjs';

const base = mkdtempSync(join(tmpdir(), 'hermes-example-'));
const project = join(base, 'project');
const home = join(base, 'hermes-home');
mkdirSync(join(project, '.git'), { recursive: true });
writeFileSync(join(project, '.env'), 'TOKEN=secret\n');
mkdirSync(home, { recursive: true });
const policy = join(packageRoot, 'examples/policies/no-secrets.mjs');
writeFileSync(join(home, 'config.yaml'), `extensions:\n  paths: [${JSON.stringify(policy)}]\n`);

const command = 'cat .env';
/** Each agent: its event for a shell call of `command`, and what its answer tells it. */
const agents = [
  {
    name: 'claude-code',
    title: 'Claude Code',
    event: {
      session_id: 's1',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 'toolu_1',
    },
    verdict: (a) => [
      a.hookSpecificOutput?.permissionDecision,
      a.hookSpecificOutput?.permissionDecisionReason,
    ],
  },
  {
    name: 'codex',
    title: 'Codex',
    event: {
      session_id: 's2',
      turn_id: 't1',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 'call_1',
    },
    verdict: (a) => [
      a.hookSpecificOutput?.permissionDecision,
      a.hookSpecificOutput?.permissionDecisionReason,
    ],
  },
  {
    name: 'hermes-agent',
    title: 'Hermes agent',
    event: {
      hook_event_name: 'pre_tool_call',
      tool_name: 'terminal',
      // Under Hermes' shell hooks a terminal call names its folder: without it, it could run
      // wherever an earlier `cd` left the terminal, and is refused (docs/hermes-agent.md).
      tool_input: { command, workdir: project },
      session_id: 's3',
      cwd: project,
      profile: 'default',
      extra: { tool_call_id: 'c1', turn_id: 't1' },
    },
    verdict: (a) => [a.action, a.message],
  },
  {
    name: 'cursor',
    title: 'Cursor',
    event: {
      conversation_id: 's4',
      generation_id: 'g1',
      cursor_version: '2.0.77',
      workspace_roots: [project],
      hook_event_name: 'preToolUse',
      tool_name: 'Shell',
      tool_input: { command },
      tool_use_id: 'tool_1',
      cwd: project,
    },
    verdict: (a) => [a.permission, a.agent_message],
  },
  {
    name: 'antigravity',
    title: 'Antigravity',
    event: {
      conversationId: 's5',
      stepIdx: 0,
      toolCall: { name: 'run_command', args: { CommandLine: command, Cwd: project } },
      workspacePaths: [project],
    },
    verdict: (a) => [a.decision, a.reason],
  },
];

let refused = 0;
for (const agent of agents) {
  const answer = execFileSync(
    process.execPath,
    [join(packageRoot, 'bin/hermes.js'), 'hook', agent.name],
    {
      input: JSON.stringify(agent.event),
      cwd: project,
      env: { ...process.env, HERMES_HOME: home, HERMES_DAEMON: '0' },
      encoding: 'utf8',
    },
  );
  const [decision, reason] = agent.verdict(JSON.parse(answer));
  console.log(`${agent.title}: ${decision} — ${reason}`);
  if (decision === 'deny' || decision === 'block') refused++;
}

// OpenCode runs hooks as a plugin in its own process, not as commands: the plugin
// `hermes hook install opencode` writes (src/host/opencode/plugin.ts), given the call as OpenCode
// hands it over, runs `hermes hook opencode` and refuses the call by throwing, which OpenCode
// gives the model as the tool's error.
process.env.HERMES_HOME = home;
process.env.HERMES_DAEMON = '0';
const { createHermesPlugin } = await import(join(packageRoot, 'dist/host/opencode/plugin.js'));
const bin = join(packageRoot, 'bin/hermes.js');
const opencode = await createHermesPlugin({ argv: [process.execPath, bin, 'hook', 'opencode'] })({
  directory: project,
});
try {
  await opencode['tool.execute.before'](
    { tool: 'bash', sessionID: 's6', callID: 'call_1' },
    { args: { command } },
  );
  console.log('OpenCode: allowed');
} catch (error) {
  console.log(`OpenCode: refused — ${error.message}`);
  refused++;
}
await opencode.dispose?.();
rmSync(base, { recursive: true, force: true });
if (refused !== agents.length + 1) process.exitCode = 1;
