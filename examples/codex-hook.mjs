// What Codex sends `hermes hook codex` before a tool call, and what it gets back:
// `hermes hook install codex` makes Codex run this command for each event. Codex sends file edits
// as apply_patch with the patch text in `command`; extensions see it as `patch` `{ patch }`.
// Run it: node examples/codex-hook.mjs
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, throwawaySetup } from './support/throwaway-setup.mjs';

const { base, project, home } = throwawaySetup();
const patch = [
  '*** Begin Patch',
  '*** Update File: src/app.ts',
  '@@',
  '-export {};',
  '+export const x = 1;',
  '*** End Patch',
].join('\n');
const event = {
  session_id: 'example-session',
  turn_id: 'example-turn',
  transcript_path: null,
  cwd: project,
  hook_event_name: 'PreToolUse',
  model: 'gpt-5',
  permission_mode: 'default',
  tool_name: 'apply_patch',
  tool_input: { command: patch },
  tool_use_id: 'call_example_1',
};
const answer = execFileSync(
  process.execPath,
  [join(packageRoot, 'bin/hermes.js'), 'hook', 'codex'],
  {
    input: JSON.stringify(event),
    cwd: project,
    env: { ...process.env, HERMES_HOME: home, HERMES_DAEMON: '0' },
    encoding: 'utf8',
  },
);
const output = JSON.parse(answer).hookSpecificOutput;
console.log(`Codex is told: ${output.permissionDecision}`);
console.log(`and the model reads: ${output.permissionDecisionReason}`);
rmSync(base, { recursive: true, force: true });
if (output.permissionDecision !== 'deny') process.exitCode = 1;
