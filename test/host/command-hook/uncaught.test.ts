import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * An extension's code that throws where no chain can catch it — a timer, a promise nobody
 * awaits — used to end the hook process with exit 1 and a stack trace: both agents run the call
 * on that. The process now answers the event being decided with the fail-closed answer, naming
 * the extension and the error, and exits 0 with that one answer.
 */

/** A handler that starts `fault` and then waits on a promise that never settles. */
const hangingAfter = (fault: string, hook = 'intercept_tool_call') =>
  `hermes.on('${hook}', () => { ${fault}; return new Promise(() => {}); }, { timeoutMs: Infinity });`;

const THROW_IN_TIMER = `setTimeout(() => { throw new Error('boom in a timer'); }, 0)`;
const REJECT_UNAWAITED = `Promise.reject(new Error('boom unawaited'))`;

/** A global extension `name` whose setup is `body` (after `topLevel`), in a fresh HERMES_HOME. */
function homeWith(name: string, body: string, topLevel = '') {
  return tree({
    'config.yaml': 'extensions: {}\n',
    [`extensions/${name}.ts`]: tsExtension(name, body, topLevel),
  });
}

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s, when an extension throws outside its chain',
  (agent) => {
    const base = () => ({
      session_id: `${agent}-uncaught`,
      turn_id: 't1',
      cwd: tree({ '.git/HEAD': '' }),
    });
    const bashCall = () => ({
      ...base(),
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'call_1',
    });
    const prompt = () => ({ ...base(), hook_event_name: 'UserPromptSubmit', prompt: 'hello' });

    /** The one JSON answer on stdout (a second one would not parse), with exit code 0. */
    async function answer(home: string, event: unknown) {
      const got = await runHook(agent, home, event);
      expect(got.code, got.stderr).toBe(0);
      expect(got.stdout.trim().split('\n'), got.stdout).toHaveLength(1);
      return { ...got, output: JSON.parse(got.stdout) };
    }

    const denyReason = (output: { hookSpecificOutput?: Record<string, unknown> }) => {
      expect(output.hookSpecificOutput).toMatchObject({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
      });
      return String(output.hookSpecificOutput?.permissionDecisionReason);
    };

    it('denies a tool call whose handler started a timer that throws, naming the extension and the error', async () => {
      const home = homeWith('timer-bomb', hangingAfter(THROW_IN_TIMER));
      const { output, stderr } = await answer(home, bashCall());
      const reason = denyReason(output);
      expect(reason).toContain('"timer-bomb"');
      expect(reason).toContain('boom in a timer');
      expect(stderr).toContain('boom in a timer');
    });

    it('denies a tool call whose handler ends the process (process.exit(0)) before any answer', async () => {
      const home = homeWith(
        'exit-bomb',
        `hermes.on('intercept_tool_call', () => { process.exit(0); });`,
      );
      const reason = denyReason((await answer(home, bashCall())).output);
      expect(reason).toContain('process.exit');
    });

    it('denies a tool call whose handler left a promise rejected and unawaited', async () => {
      const home = homeWith('reject-bomb', hangingAfter(REJECT_UNAWAITED));
      const reason = denyReason((await answer(home, bashCall())).output);
      expect(reason).toContain('"reject-bomb"');
      expect(reason).toContain('boom unawaited');
    });

    it('denies a tool call when a timer started by setup throws while the call is decided', async () => {
      const home = homeWith(
        'setup-bomb',
        `${THROW_IN_TIMER.replace('boom in a timer', 'boom from setup')};
         hermes.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: Infinity });`,
      );
      const reason = denyReason((await answer(home, bashCall())).output);
      expect(reason).toContain('"setup-bomb"');
      expect(reason).toContain('boom from setup');
    });

    it('denies a tool call when a timer started as its module loaded throws while the call is decided', async () => {
      const home = homeWith(
        'load-bomb',
        `hermes.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: Infinity });`,
        `${THROW_IN_TIMER.replace('boom in a timer', 'boom at load')};`,
      );
      const reason = denyReason((await answer(home, bashCall())).output);
      expect(reason).toContain('"load-bomb"');
      expect(reason).toContain('boom at load');
    });

    it('names a project extension (loaded as project code) whose timer throws', async () => {
      const home = tree({ 'config.yaml': 'extensions: {}\n' });
      const event = bashCall();
      write(event.cwd, {
        '.hermes/extensions/project-bomb/index.ts': tsExtension(
          'project-bomb',
          hangingAfter(THROW_IN_TIMER),
        ),
      });
      const got = await runHook(agent, home, event, { HERMES_TRUST_PROJECT: '1' });
      expect(got.code, got.stderr).toBe(0);
      const reason = denyReason(JSON.parse(got.stdout));
      expect(reason).toContain('"project-bomb"');
      expect(reason).toContain('boom in a timer');
    });

    it('lets a prompt go on with a message naming the extension, as for any failure of hermes', async () => {
      const home = homeWith('prompt-bomb', hangingAfter(THROW_IN_TIMER, 'transform_user_input'));
      const { output } = await answer(home, prompt());
      expect(output.hookSpecificOutput).toBeUndefined();
      expect(output.systemMessage).toContain('"prompt-bomb"');
      expect(output.systemMessage).toContain('boom in a timer');
    });

    it('keeps the answer already printed when an extension throws after it: one answer, exit 0', async () => {
      // The throw is set off by the answer's own write to stdout, so it comes after it.
      const home = homeWith(
        'late-bomb',
        `const write = process.stdout.write.bind(process.stdout);
         process.stdout.write = (...args) => {
           setImmediate(() => { throw new Error('boom after the answer'); });
           return write(...args);
         };
         hermes.on('intercept_tool_call', () => block('refused by late-bomb'));`,
      );
      const { output, stderr } = await answer(home, bashCall());
      expect(denyReason(output)).toBe('refused by late-bomb');
      expect(stderr).toContain('boom after the answer');
    });
  },
);
