import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tsExtension, write } from '../support/fixtures.js';
import {
  FINAL_TEXT,
  messageText,
  startFakeChatCompletions,
} from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  hermesPrompt,
  hermesSetup,
  toolResults,
} from './hermes-agent-setup.js';
import { openTurns, secondAnswerGate } from './setup.js';

// The real Hermes agent (`hermes -z`, pinned by test/real-agents/hermes-requirements.txt), offline
// against a scripted Chat Completions model on loopback, with the shell hooks
// `hermes hook install hermes-agent` wrote into its config.yaml.

const APP = 'export const app = "the app";\n';
const SECRET = 'hunter2-e2e-secret';

/** Refuses any tool call that names `.env`: the secret in it must never reach the model. */
const NO_ENV = tsExtension(
  'no-env',
  `hermes.on('intercept_tool_call', (e) =>
    JSON.stringify(e.toolArgs).includes('.env') ? block('E2E: .env holds secrets') : undefined);`,
);

/** Rewrites every prompt: under shell hooks the rewrite reaches the model as context. */
const REWRITER = tsExtension(
  'rewriter',
  `hermes.on('transform_user_input', () => rewrite('E2E-REWRITTEN: summarise the project'));`,
  `import { rewrite } from 'hermes-extensions';`,
);

describeRealHermes('the real Hermes agent with hermes hook install hermes-agent', (hermes) => {
  it('workflow-guard refuses a shell write and a write_file before a plan, the files are unchanged, and a read passes', async () => {
    const shell = { name: 'terminal', args: { command: 'echo fixed > src/app.ts' } };
    const model = await startFakeChatCompletions([
      { name: 'read_file', args: { path: 'src/app.ts' } },
      shell,
      { name: 'write_file', args: { path: 'src/login.ts', content: 'export {};\n' } },
    ]);
    const env = await hermesSetup(model, 'shell hooks');
    // Under the shell hooks a terminal call names its folder (a call without is refused for that).
    Object.assign(shell.args, { workdir: env.project });
    write(env.project, { 'src/app.ts': APP });
    const run = await hermesPrompt(hermes, env, 'fix the login bug');
    const why = evidence(env, run, model);
    expect(run.code, why).toBe(0);
    expect(run.stdout, why).toContain(FINAL_TEXT);
    expect(readFileSync(join(env.project, 'src/app.ts'), 'utf8')).toBe(APP);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    const results = toolResults(model);
    expect(results.call_0, why).toContain('the app');
    for (const refused of [results.call_1, results.call_2]) {
      expect(refused, why).toMatch(/Blocked by workflow-guard/);
      expect(refused, why).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    expect(openTurns(env.hermesHome)).toEqual([]);
  });

  it('a `cat .env` and a read_file of .env are refused, and the secret never reaches the model server', async () => {
    const shell = { name: 'terminal', args: { command: 'cat .env' } };
    const model = await startFakeChatCompletions([
      shell,
      { name: 'read_file', args: { path: '.env' } },
    ]);
    const env = await hermesSetup(model, 'shell hooks', { 'no-env': NO_ENV });
    Object.assign(shell.args, { workdir: env.project });
    write(env.project, { '.env': `SECRET=${SECRET}\n` });
    const run = await hermesPrompt(hermes, env, 'show me the settings');
    const why = evidence(env, run, model);
    expect(run.code, why).toBe(0);
    expect(model.requests.length, why).toBe(3);
    const results = toolResults(model);
    for (const refused of [results.call_0, results.call_1])
      expect(refused, why).toContain('E2E: .env holds secrets');
    expect(JSON.stringify(model.requests), 'the secret in .env reached the model').not.toContain(
      SECRET,
    );
  });

  it('a transform_user_input rewrite reaches the model as context (shell hooks cannot replace the text), and the final answer cannot be gated', async () => {
    const model = await startFakeChatCompletions([
      { name: 'read_file', args: { path: 'src/app.ts' } },
    ]);
    const env = await hermesSetup(model, 'shell hooks', {
      rewriter: REWRITER,
      'second-answer': secondAnswerGate,
    });
    write(env.project, { 'src/app.ts': APP });
    const run = await hermesPrompt(hermes, env, 'ORIGINAL-E2E-PROMPT');
    const why = evidence(env, run, model);
    expect(run.code, why).toBe(0);
    for (const request of model.requests) {
      const user = messageText(request.messages.find((message) => message.role === 'user'));
      // Hermes keeps the user's text and adds the hook's context to it.
      expect(user, why).toContain('ORIGINAL-E2E-PROMPT');
      expect(user, why).toContain('E2E-REWRITTEN: summarise the project');
    }
    // Hermes reads no answer from a shell hook at the end of a turn (on_session_end): the gate's
    // "check your work once more" did not send the agent back, and its answer is printed as is.
    expect(model.requests.length, why).toBe(2);
    expect(run.stdout.trim(), why).toBe(FINAL_TEXT);
    expect(openTurns(env.hermesHome)).toEqual([]);
  });
});
