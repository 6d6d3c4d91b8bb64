// A new guard rolled out in shadow mode: it refuses force pushes, but `mode: shadow` in its config
// section has the chain record its block and let the call run. audit-log writes the decision, and
// `hermes extensions report` reads the log back: what the guard would have refused, and why.
// The model here is scripted to run `git push --force origin main` and `git status`.
// Run it: node examples/shadow-mode.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { block, createRuntime, defineExtension, runConversation } from 'hermes-extensions';
import auditLog from 'hermes-extensions/audit-log';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { packageRoot } from './support/throwaway-setup.mjs';

const noForcePush = defineExtension({
  name: 'no-force-push',
  setup(hermes) {
    hermes.on(
      'intercept_tool_call',
      (event) =>
        /\bgit\s+push\b.*\s(--force|-f)\b/.test(String(event.toolArgs.command))
          ? block('force pushes rewrite shared history: push a new commit instead')
          : undefined,
      { tools: ['bash'] },
    );
  },
});

const project = mkdtempSync(join(tmpdir(), 'hermes-shadow-'));
const audit = join(project, 'audit.jsonl');
const runtime = await createRuntime({
  extensions: [noForcePush, auditLog],
  cwd: project,
  // As in $HERMES_HOME/config.yaml: `extensions: { no-force-push: { mode: shadow } }`.
  config: { extensions: { 'no-force-push': { mode: 'shadow' }, 'audit-log': { path: audit } } },
});
const result = await runConversation({
  runtime,
  sessionId: 'shadow',
  userMessage: 'publish my rebased branch',
  systemPrompt: 'You are a coding agent.',
  model: scriptedModel([
    {
      content: 'Pushing.',
      toolCalls: [
        toolCall('bash', { command: 'git push --force origin main' }),
        toolCall('bash', { command: 'git status' }),
      ],
    },
    { content: 'Pushed.' },
  ]),
  // A stand-in shell. It is given the command as it will run: git, which a repository's own
  // settings can steer, runs in the framework's protected-ground sandbox (docs/trust.md).
  tools: {
    bash: { execute: ({ command }) => (command.includes('git push') ? 'pushed' : 'clean') },
  },
});
// What the model asked for, and what came back: in shadow mode the push went ahead.
for (const call of result.toolCalls) {
  console.log(`${call.requestedArguments.command} -> ${call.result}`);
}
// Closing flushes the audit log to the disk.
await runtime.close();

const report = execFileSync(
  process.execPath,
  [join(packageRoot, 'bin/hermes.js'), 'extensions', 'report', '--file', audit, '--cwd', project],
  { env: { ...process.env, HERMES_HOME: join(project, 'home') }, encoding: 'utf8' },
);
console.log(report.trimEnd());
rmSync(project, { recursive: true, force: true });
