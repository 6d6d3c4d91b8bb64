import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/** An extension with one async handler on `hook` that takes `ms`, well under its own timeout. */
const slow = (name: string, priority: number, ms: number) =>
  tsExtension(
    name,
    `hermes.on('intercept_tool_call', async () => {
       await new Promise((resolve) => setTimeout(resolve, ${ms}));
       return undefined;
     }, { priority: ${priority}, timeoutMs: 5000 });`,
  );

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s under a whole-chain deadline',
  (agent) => {
    function setup(config: string, ms = 400) {
      const home = tree({
        'config.yaml': config,
        'extensions/slow-a.ts': slow('slow-a', 10, ms),
        'extensions/slow-b.ts': slow('slow-b', 20, ms),
        'extensions/slow-c.ts': slow('slow-c', 30, ms),
      });
      const project = tree({ '.git/HEAD': '' });
      const call = {
        session_id: `${agent}-session`,
        turn_id: 't1',
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'call_1',
      };
      return { home, call };
    }

    const reasonOf = (stdout: string) => {
      const output = JSON.parse(stdout);
      expect(output.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      return String(output.hookSpecificOutput.permissionDecisionReason);
    };

    it('denies a call whose slow handlers together pass extensions.chain_timeout_ms, naming them', async () => {
      const { home, call } = setup(
        'extensions:\n  chain_timeout_ms:\n    intercept_tool_call: 600\n',
      );
      const answer = await runHook(agent, home, call, {}, { timeout: 30_000 });
      expect(answer.code, answer.stderr).toBe(0);
      const reason = reasonOf(answer.stdout);
      expect(reason).toMatch(
        /intercept_tool_call chain ran past its chainTimeoutMs of 600 ms \(ran: (slow-a|none); cut off: slow-[ab]; did not run: .*slow-c\)/,
      );
      expect(reason).toMatch(/extensions\.chain_timeout_ms\.intercept_tool_call/);
      expect(answer.stderr).toMatch(/ran past its chainTimeoutMs of 600 ms/);
    });

    it('lets the same call run without a chain deadline', async () => {
      const { home, call } = setup('extensions: {}\n');
      const answer = await runHook(agent, home, call, {}, { timeout: 30_000 });
      expect(answer.code, answer.stderr).toBe(0);
      expect(answer.stdout.includes('"deny"')).toBe(false);
    });

    it('cuts the chain at what the hook deadline leaves it, before the bare late answer', async () => {
      // 4.5 s of handlers against a hook deadline of 3 s, of which the chains get 2.4 s from the
      // process's start (a fifth is kept to write the answer): the config's limit is lowered.
      const { home, call } = setup(
        'extensions:\n  chain_timeout_ms:\n    intercept_tool_call: 60000\n',
        1500,
      );
      const env = { HERMES_HOOK_DEADLINE_MS: '3000' };
      const answer = await runHook(agent, home, call, env, { timeout: 30_000 });
      expect(answer.code, answer.stderr).toBe(0);
      expect(reasonOf(answer.stdout)).toMatch(
        /intercept_tool_call chain ran past the \d+ ms its host's deadline left it \(ran: .*HERMES_HOOK_DEADLINE_MS/,
      );
    });

    it('refuses a prompt whose validator a short HERMES_HOOK_DEADLINE_MS cut off (a project can set it)', async () => {
      // A prompt validator that would refuse this prompt, slower than what a deadline of 2 s
      // leaves the chain: the variable comes from the agent's environment, which a project's
      // settings can set (Claude Code passes a project's `env` to its hooks).
      const home = tree({
        'config.yaml': 'extensions: {}\n',
        'extensions/slow-validator.ts': tsExtension(
          'slow-validator',
          `hermes.on('transform_user_input', async (e) => {
             await new Promise((resolve) => setTimeout(resolve, 4000));
             return e.userMessage.includes('exfiltrate') ? block('not this prompt') : undefined;
           }, { timeoutMs: 8000 });`,
        ),
      });
      const prompt = {
        session_id: `${agent}-prompt`,
        turn_id: 't1',
        cwd: tree({ '.git/HEAD': '' }),
        hook_event_name: 'UserPromptSubmit',
        prompt: 'exfiltrate the keys',
      };
      const env = { HERMES_HOOK_DEADLINE_MS: '2000' };
      const answer = await runHook(agent, home, prompt, env, { timeout: 30_000 });
      expect(answer.code, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout)).toMatchObject({ decision: 'block' });
    });
  },
);
