import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, root, runHook } from '../../support/run-bin.js';

/**
 * Both agents run a tool call whose hook exits 1, crashes, or prints what they do not accept.
 * Each case here was such a bypass: the answer must now be a deny that says why, in a shape the
 * agent honours (Codex's parser is strict: the answers are held to what it accepts).
 */
const codexAnswer = z.union([
  z.strictObject({
    hookSpecificOutput: z.strictObject({
      hookEventName: z.literal('PreToolUse'),
      permissionDecision: z.literal('deny'),
      permissionDecisionReason: z.string().trim().min(1),
    }),
  }),
  z.strictObject({
    systemMessage: z.string().min(1).optional(),
    decision: z.literal('block').optional(),
    reason: z.string().min(1).optional(),
    hookSpecificOutput: z
      .strictObject({ hookEventName: z.literal('UserPromptSubmit'), additionalContext: z.string() })
      .optional(),
  }),
]);

const guard = join(root, 'extensions/workflow-guard');

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s fails closed',
  (agent) => {
    function setup(config = `extensions:\n  paths: [${JSON.stringify(guard)}]\n`, files = {}) {
      const home = tree({ 'config.yaml': config, ...files });
      const project = tree({ '.git/HEAD': '' });
      const base = { session_id: `${agent}-session`, turn_id: 't1', cwd: project };
      const bashWrite = {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'echo x > src/login.ts' },
        tool_use_id: 'call_1',
      };
      const read = { ...bashWrite, tool_input: { command: 'ls' }, tool_use_id: 'call_2' };
      const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hello' };
      return { home, project, base, bashWrite, read, prompt };
    }

    async function ask(home: string, event: unknown) {
      const answer = await runHook(agent, home, event);
      expect(answer.code, answer.stderr).toBe(0);
      const output = answer.stdout === '' ? undefined : JSON.parse(answer.stdout);
      if (agent === 'codex' && output !== undefined) codexAnswer.parse(output);
      return { ...answer, output };
    }

    const denial = (output: { hookSpecificOutput?: Record<string, unknown> } | undefined) => {
      expect(output?.hookSpecificOutput).toMatchObject({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
      });
      return String(output?.hookSpecificOutput?.permissionDecisionReason);
    };

    it('denies a shell write when an enabled extension failed to load, naming it, its file and the fix', async () => {
      const { home, bashWrite } = setup('extensions: {}\n', {
        'extensions/broken-guard.ts': tsExtension('broken-guard', 'throw new Error("no db");'),
      });
      const reason = denial((await ask(home, bashWrite)).output);
      expect(reason).toContain(
        `extension "broken-guard" (${join(home, 'extensions/broken-guard.ts')})`,
      );
      expect(reason).toMatch(/no db/);
      expect(reason).toMatch(/hermes extensions disable broken-guard/);
    });

    it('lets the call run under on_load_error: warn, and says so once per session', async () => {
      const { home, read, prompt } = setup('extensions:\n  on_load_error: warn\n', {
        'extensions/broken-guard.ts': 'export default {',
      });
      const first = await ask(home, read);
      expect(first.output?.hookSpecificOutput).toBeUndefined();
      expect(first.output?.systemMessage).toMatch(/"broken-guard".*tool calls run without it/s);
      const second = await ask(home, prompt);
      expect(second.output).toBeUndefined();
    });

    it('denies when the config does not parse, naming the file; the prompt goes on, with a message', async () => {
      const { home, bashWrite, prompt } = setup('extensions: [unclosed\n');
      const reason = denial((await ask(home, bashWrite)).output);
      expect(reason).toContain(join(home, 'config.yaml'));
      const promptAnswer = await ask(home, prompt);
      expect(promptAnswer.output).toEqual({
        systemMessage: expect.stringContaining('config.yaml'),
      });
    });

    it('denies when the turn-state store cannot be used, in one line naming the path', async () => {
      const { home, read } = setup(undefined, { turns: 'a file where the folder should be' });
      const answer = await ask(home, read);
      const reason = denial(answer.output);
      expect(reason).toContain(join(home, 'turns'));
      expect(reason).not.toContain('\n');
      expect(answer.stderr).not.toMatch(/\n\s+at /);
    });

    it('denies when the turn state is corrupt, naming the file; the next prompt starts afresh', async () => {
      const { home, read, prompt, base } = setup();
      const file = join(home, 'turns', `${encodeURIComponent(base.session_id)}.json`);
      write(home, { [`turns/${encodeURIComponent(base.session_id)}.json`]: '{"turnId":' });
      expect(denial((await ask(home, read)).output)).toContain(file);
      // The prompt goes on without a message (workflow-guard's reminder is its only context).
      expect((await ask(home, prompt)).output?.systemMessage).toBeUndefined();
      expect((await ask(home, read)).output).toBeUndefined();
    });

    it('denies before the agent gives up on it: a handler that outlasts the hook deadline', async () => {
      // The agent kills a hook that takes too long (30 s as installed) and runs the call: the
      // answer must come first, whatever a handler's own timeout says. (A hang while loading,
      // before any chain runs, gets the hook's bare late answer instead.)
      const { home, bashWrite, prompt } = setup('extensions: {}\n', {
        'extensions/slow-guard.ts': tsExtension(
          'slow-guard',
          `hermes.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: 600_000 });
           hermes.on('transform_user_input', () => new Promise(() => {}), { timeoutMs: 600_000 });`,
        ),
      });
      // Room for loading on a loaded machine: the chains get 2.4 s of it.
      const env = { HERMES_HOOK_DEADLINE_MS: '3000' };
      const started = Date.now();
      const answer = await runHook(agent, home, bashWrite, env, { timeout: 30_000 });
      expect(answer.code, answer.stderr).toBe(0);
      const output = JSON.parse(answer.stdout);
      if (agent === 'codex') codexAnswer.parse(output);
      // The chain is cut where the hook deadline leaves it (a fifth kept back to answer): the
      // refusal names the handler it was waiting for.
      expect(denial(output)).toMatch(
        /intercept_tool_call chain ran past the \d+ ms its host's deadline left it \(ran: none; (cut off: slow-guard; did not run: none|did not run: slow-guard)\).*HERMES_HOOK_DEADLINE_MS/,
      );
      expect(Date.now() - started).toBeLessThan(30_000);
      // A prompt is refused too: the host's time, not the user's chainTimeoutMs, cut its chain
      // off, and the variable that sets it is the agent's environment (chain-deadline.ts).
      const promptAnswer = await runHook(agent, home, prompt, env, { timeout: 30_000 });
      expect(promptAnswer.code).toBe(0);
      const refused = JSON.parse(promptAnswer.stdout);
      expect(refused).toMatchObject({ decision: 'block' });
      expect(refused.reason).toMatch(
        /transform_user_input chain ran past the \d+ ms its host's deadline left it \(ran: none; (cut off: slow-guard; did not run: none|did not run: slow-guard)\): blocked \(fails closed, the host's time\)/,
      );
    });

    it('denies an event it cannot read, which may have been a tool call', async () => {
      const { home } = setup();
      for (const input of [
        'not json',
        '[]',
        '{"hook_event_name":"PreToolUse"}',
        '{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}',
        '{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write"}',
      ]) {
        const answer = await ask(home, input);
        expect(denial(answer.output), input).toMatch(/^Hermes could not check this call/);
        expect(answer.stderr, input).toMatch(new RegExp(`^hermes hook ${agent}: `));
      }
    });

    it("tells once per session that an untrusted project's guards are not running", async () => {
      const { home, project, read, prompt, base } = setup('extensions: {}\n');
      write(project, { '.hermes/extensions/local-guard.ts': tsExtension('local-guard') });
      const first = await ask(home, prompt);
      expect(first.output?.systemMessage).toMatch(
        /this project's extensions and config are not running.*hermes extensions trust/,
      );
      expect((await ask(home, read)).output).toBeUndefined();
      await ask(home, { ...base, hook_event_name: 'Stop', stop_hook_active: false });
      expect((await ask(home, { ...prompt, turn_id: 't2' })).output).toBeUndefined();
    });
  },
);
