// What Claude Code sends `hermes hook claude-code` before a tool call, and what it gets back:
// `hermes hook install claude-code` makes Claude Code run this command for each event. Here a
// Write to src/app.ts (Claude Code sends absolute paths) meets workflow-guard without a plan.
// Run it: node examples/claude-code-hook.mjs
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, throwawaySetup } from './support/throwaway-setup.mjs';

const { base, project, home } = throwawaySetup();
const event = {
  session_id: 'example-session',
  transcript_path: join(base, 'transcript.jsonl'),
  cwd: project,
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: join(project, 'src/app.ts'), content: 'export const x = 1;\n' },
  tool_use_id: 'toolu_example_1',
};
const answer = execFileSync(
  process.execPath,
  [join(packageRoot, 'bin/hermes.js'), 'hook', 'claude-code'],
  {
    input: JSON.stringify(event),
    cwd: project,
    env: { ...process.env, HERMES_HOME: home, HERMES_DAEMON: '0' },
    encoding: 'utf8',
  },
);
const output = JSON.parse(answer).hookSpecificOutput;
console.log(`Claude Code is told: ${output.permissionDecision}`);
console.log(`and the model reads: ${output.permissionDecisionReason}`);
rmSync(base, { recursive: true, force: true });
if (output.permissionDecision !== 'deny') process.exitCode = 1;
