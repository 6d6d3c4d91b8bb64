import { expect, it } from 'vitest';
import { tsExtension, write } from '../support/fixtures.js';
import {
  FINAL_TEXT,
  messageText,
  startFakeChatCompletions,
  toolNames,
} from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  expectRunAsJudged,
  hermesPrompt,
  hermesSetup,
  REWRITE_SCRIPT,
  shown,
} from './hermes-agent-setup.js';
import { noTmpExtension } from './setup.js';

// The hook points the plugin can hold at full strength only through Hermes' middleware
// (hermes_cli/middleware.py, since hermes-agent 0.17.0): the real Hermes agent (`hermes -z`, 0.19.0)
// with `hermes hook install hermes-agent --plugin`, against a scripted Chat Completions model on
// loopback that records every request. Each assertion reads what the model server was sent.

const APP = 'export const app = "the app";\n';

/**
 * Before every model request: a system reminder numbered by the loop's iteration, and the
 * request's tools without write_file (`write` as extensions see it).
 */
const EVERY_REQUEST = tsExtension(
  'every-request',
  `hermes.on('before_llm_call', (e) => injectSystem('E2E-REMINDER at iteration ' + e.iteration));
    hermes.on('before_llm_call', () =>
      restrictTools((name) => name !== 'write', 'E2E: no writes this turn'));`,
  `import { injectSystem, restrictTools } from 'hermes-extensions';`,
);

/** Replaces the user's text, and refuses a prompt that says FORBIDDEN. */
const PROMPTS = tsExtension(
  'prompts',
  `hermes.on('transform_user_input', (e) => e.userMessage.includes('FORBIDDEN')
    ? block('E2E-PROMPT-REFUSED: that request is not allowed')
    : rewrite('E2E-REWRITTEN: summarise src/app.ts'));`,
  `import { rewrite } from 'hermes-extensions';`,
);

/** Withholds every final answer. */
const GATE = tsExtension(
  'gate',
  `hermes.on('transform_final_answer', () => block('E2E-GATE: the answer is withheld'));`,
);

describeRealHermes('the real Hermes agent’s middleware, through its plugin', (hermes) => {
  it('before_llm_call runs before EVERY model request of a turn (a new injection each, numbered), and restrictTools takes write_file out of each request', async () => {
    // Two tool round trips: three model requests in the one turn.
    const model = await startFakeChatCompletions([
      { name: 'read_file', args: { path: 'src/app.ts' } },
      { name: 'search_files', args: { pattern: 'app' } },
    ]);
    const env = await hermesSetup(model, 'plugin', { 'every-request': EVERY_REQUEST });
    write(env.project, { 'src/app.ts': APP });
    const run = await hermesPrompt(hermes, env, 'look at the app');
    const why = evidence(env, run);
    expect(run.code, why).toBe(0);
    expect(model.requests.length, why).toBe(3);
    const iterations = model.requests.map((request) =>
      [...JSON.stringify(request.messages).matchAll(/E2E-REMINDER at iteration (\d+)/g)].map(
        (match) => match[1],
      ),
    );
    // Once per request, each its own: not one turn-wide reminder carried in the history.
    expect
      .soft(iterations, `reminders per request:\n${shown(model.requests)}`)
      .toEqual([[expect.any(String)], [expect.any(String)], [expect.any(String)]]);
    expect
      .soft(new Set(iterations.flat()).size, `reminders per request: ${JSON.stringify(iterations)}`)
      .toBe(3);
    for (const [index, request] of model.requests.entries()) {
      expect
        .soft(toolNames(request), `request ${index + 1} offers write_file:\n${shown([request])}`)
        .not.toContain('write_file');
      expect.soft(toolNames(request), `request ${index + 1}`).toContain('read_file');
    }
  });

  it('transform_user_input: the rewrite replaces the user’s text in every request of the turn; transform_final_answer: a block replaces the answer', async () => {
    const model = await startFakeChatCompletions([
      { name: 'read_file', args: { path: 'src/app.ts' } },
    ]);
    const env = await hermesSetup(model, 'plugin', { prompts: PROMPTS, gate: GATE });
    write(env.project, { 'src/app.ts': APP });
    const run = await hermesPrompt(hermes, env, 'ORIGINAL-E2E-PROMPT please');
    const why = evidence(env, run);
    expect(model.requests.length, why).toBe(2);
    for (const [index, request] of model.requests.entries()) {
      const users = request.messages.filter((message) => message.role === 'user').map(messageText);
      const original = JSON.stringify(request.messages).includes('ORIGINAL-E2E-PROMPT');
      expect
        .soft(
          original,
          `request ${index + 1} still carries the user's own text:\n${shown([request])}`,
        )
        .toBe(false);
      expect
        .soft(users.join('\n'), `request ${index + 1}'s user messages`)
        .toContain('E2E-REWRITTEN: summarise src/app.ts');
    }
    expect.soft(run.stdout, `the model's answer was not gated\n${why}`).not.toContain(FINAL_TEXT);
    expect.soft(run.stdout, why).toContain('E2E-GATE: the answer is withheld');
  });

  it('intercept_tool_call: a rewrite is what runs (Hermes 0.19.0 ignores a pre_tool_call `modify`), and a terminal command runs in the folder it was judged in', async () => {
    const model = await startFakeChatCompletions(REWRITE_SCRIPT);
    const env = await hermesSetup(model, 'plugin', { 'no-tmp': noTmpExtension });
    write(env.project, { 'plans/.keep': '', 'src/plans/.keep': '' });
    const run = await hermesPrompt(hermes, env, 'write the notes');
    const why = evidence(env, run, model);
    expect(run.code, why).toBe(0);
    expectRunAsJudged(env, why);
  });

  it('a transform_user_input block answers the turn with the refusal: the prompt reaches no model request', async () => {
    const model = await startFakeChatCompletions([]);
    const env = await hermesSetup(model, 'plugin', { prompts: PROMPTS });
    const run = await hermesPrompt(hermes, env, 'FORBIDDEN: print every secret');
    const why = evidence(env, run);
    expect
      .soft(
        model.requests.length,
        `the refused prompt reached the model:\n${shown(model.requests)}`,
      )
      .toBe(0);
    expect.soft(run.stdout, why).toContain('E2E-PROMPT-REFUSED: that request is not allowed');
  });
});
