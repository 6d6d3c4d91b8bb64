import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bridgeProcess } from '../../support/bridge-process.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built, root } from '../../support/run-bin.js';

/**
 * An extension's code that throws where no chain can catch it — a timer, a promise nobody
 * awaits — or that calls `process.exit`, used to end `hermes extensions serve --stdio` (exit 1, or
 * 0 and silence): the call in flight got no answer and every later call failed. The bridge now
 * refuses the calls of the runtime that crashed, naming the extension, logs it, and serves on: a
 * turn opened after the crash is decided by the extensions loaded afresh.
 */

const THROW_IN_TIMER = `setTimeout(() => { throw new Error('boom in a timer'); }, 0)`;
const REJECT_UNAWAITED = `Promise.reject(new Error('boom unawaited'))`;
const EXIT_IN_TIMER = 'setTimeout(() => process.exit(0), 0)';

/**
 * An extension `name` whose handler, on a call of the tool `bomb` only, starts `fault` and waits
 * for ever (no timeout of its own: only the crash can end the call); it blocks `rm` and lets
 * everything else through, so a working runtime is seen deciding.
 */
function homeWith(name: string, fault: string) {
  return tree({
    'config.yaml': 'extensions: {}\n',
    [`extensions/${name}.ts`]: tsExtension(
      name,
      `hermes.on('intercept_tool_call', (e) => {
        if (e.toolName === 'rm') return block('rm is not allowed');
        if (e.toolName !== 'bomb') return undefined;
        ${fault};
        return new Promise(() => {});
      }, { timeoutMs: Infinity });`,
    ),
  });
}

const tool = (turn: string, name: string) => ({ turn_id: turn, tool_name: name, tool_args: {} });

describe.runIf(built)('hermes extensions serve --stdio, when an extension crashes', () => {
  describe.each([
    ['timer-bomb', THROW_IN_TIMER, 'boom in a timer'],
    ['reject-bomb', REJECT_UNAWAITED, 'boom unawaited'],
    ['exit-bomb', EXIT_IN_TIMER, 'process.exit(0)'],
  ])('%s', (name, fault, said) => {
    it('refuses the call in flight naming the extension, and answers the next calls', async () => {
      const { call, child, exited, stderr } = bridgeProcess(
        homeWith(name, fault),
        tree({ '.git/HEAD': '' }),
      );
      expect(await call(1, 'turn/start', { session_id: 's', turn_id: 't1' })).toMatchObject({
        result: { turn_id: 't1' },
      });
      const inFlight = await call(2, 'intercept_tool_call', tool('t1', 'bomb'));
      expect(inFlight).toMatchObject({ id: 2, result: { blocked: true, blocked_by: name } });
      const message = String((inFlight.result as { message: string }).message);
      expect(message).toContain(`extension "${name}"`);
      expect(message).toContain(said);

      // The turn's state went with its runtime: its calls are refused, never allowed unjudged.
      const sameTurn = await call(3, 'intercept_tool_call', tool('t1', 'read'));
      expect(sameTurn).toMatchObject({ id: 3, result: { blocked: true, blocked_by: name } });
      expect(String((sameTurn.result as { message: string }).message)).toContain(
        `extension "${name}"`,
      );
      // A hook that fails open goes on with the host's input, the reason in the trace.
      const prompt = await call(31, 'transform_user_input', { turn_id: 't1', user_message: 'hi' });
      expect(prompt).toMatchObject({ result: { blocked: false, changed: false, value: 'hi' } });
      expect((prompt.result as { trace: unknown[] }).trace).toMatchObject([
        { extension: name, action: 'error', error: expect.stringContaining(said) },
      ]);
      // The session's turn is open still, in the crashed runtime: no second one beside it.
      expect(await call(32, 'turn/start', { session_id: 's', turn_id: 't2' })).toMatchObject({
        error: { code: -32002 },
      });
      expect(await call(4, 'turn/end', { turn_id: 't1' })).toMatchObject({
        result: { ended: true },
      });

      // A new turn is decided by a working runtime: the same guard, loaded afresh.
      expect(await call(5, 'turn/start', { session_id: 's', turn_id: 't2' })).toMatchObject({
        result: { turn_id: 't2' },
      });
      expect(await call(6, 'intercept_tool_call', tool('t2', 'read'))).toMatchObject({
        result: { blocked: false },
      });
      expect(await call(7, 'intercept_tool_call', tool('t2', 'rm'))).toMatchObject({
        result: { blocked: true, blocked_by: name, message: 'rm is not allowed' },
      });
      expect(await call(8, 'turn/end', { turn_id: 't2' })).toMatchObject({
        result: { ended: true },
      });

      child.stdin.end();
      expect(await exited).toBe(0);
      // Logged with the extension's name.
      expect(stderr()).toContain(`extension "${name}"`);
      expect(stderr()).toContain(said);
    }, 30_000);
  });

  it('refuses the call of a handler that calls process.exit(0) itself, and serves on', async () => {
    const home = tree({
      'config.yaml': 'extensions: {}\n',
      'extensions/quitter.ts': tsExtension(
        'quitter',
        `hermes.on('intercept_tool_call', (e) => { if (e.toolName === 'bomb') process.exit(0); });`,
      ),
    });
    const { call, child, exited } = bridgeProcess(home, tree({ '.git/HEAD': '' }));
    await call(1, 'turn/start', { session_id: 's', turn_id: 't1' });
    const refused = await call(2, 'intercept_tool_call', tool('t1', 'bomb'));
    expect(refused).toMatchObject({ result: { blocked: true, blocked_by: 'quitter' } });
    expect(String((refused.result as { message: string }).message)).toContain('process.exit');
    await call(3, 'turn/end', { turn_id: 't1' });
    await call(4, 'turn/start', { session_id: 's', turn_id: 't2' });
    expect(await call(5, 'intercept_tool_call', tool('t2', 'read'))).toMatchObject({
      result: { blocked: false },
    });
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 30_000);

  it('refuses every turn of an extension that crashes each time it loads, naming it each time', async () => {
    const home = tree({
      'config.yaml': 'extensions: {}\n',
      'extensions/load-bomb.ts': tsExtension(
        'load-bomb',
        `setTimeout(() => { throw new Error('boom as it loads'); }, 0);
         hermes.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: Infinity });`,
      ),
    });
    const { call, child, exited } = bridgeProcess(home, tree({ '.git/HEAD': '' }));
    expect(await call(1, 'initialize', {})).toMatchObject({ result: {} });
    for (const turn of ['t1', 't2']) {
      await call(2, 'turn/start', { session_id: 's', turn_id: turn });
      const refused = await call(3, 'intercept_tool_call', tool(turn, 'read'));
      expect(refused).toMatchObject({ result: { blocked: true, blocked_by: 'load-bomb' } });
      expect(String((refused.result as { message: string }).message)).toContain('boom as it loads');
      await call(4, 'turn/end', { turn_id: turn });
    }
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 30_000);

  it('answers the Python client with a refusal naming the extension, then serves the next turn', async () => {
    const { stdout } = await promisify(execFile)(
      'python3',
      [
        join(root, 'test/host/bridge/check_extension_crash.py'),
        process.execPath,
        bin,
        tree({ '.git/HEAD': '' }),
      ],
      { env: { ...process.env, HERMES_HOME: homeWith('timer-bomb', THROW_IN_TIMER) } },
    );
    const report = JSON.parse(stdout);
    expect(report.crashed).toMatchObject({ blocked: true, blocked_by: 'timer-bomb' });
    expect(report.crashed.message).toContain('extension "timer-bomb"');
    expect(report.crashed.message).toContain('boom in a timer');
    expect(report.same_turn).toMatchObject({ blocked: true, blocked_by: 'timer-bomb' });
    expect(report.next_turn).toMatchObject({ blocked: false });
    expect(report.exit_code).toBe(0);
  }, 30_000);

  it.runIf(process.platform === 'linux')(
    'raises, in the Python client, an error saying how the bridge ended and what it said last, when it is killed',
    async () => {
      const home = tree({
        'config.yaml': 'extensions: {}\n',
        'extensions/killer.ts': tsExtension(
          'killer',
          `hermes.on('intercept_tool_call', (e) => {
            if (e.toolName === 'die') execSync('kill -9 ' + process.pid);
            if (e.toolName !== 'bomb') return undefined;
            ${THROW_IN_TIMER};
            return new Promise(() => {});
          }, { timeoutMs: Infinity });`,
          `import { execSync } from 'node:child_process';`,
        ),
      });
      const { stdout } = await promisify(execFile)(
        'python3',
        [
          join(root, 'test/host/bridge/check_bridge_death.py'),
          process.execPath,
          bin,
          tree({ '.git/HEAD': '' }),
        ],
        { env: { ...process.env, HERMES_HOME: home } },
      );
      const report = JSON.parse(stdout);
      expect(report.crashed).toMatchObject({ blocked: true, blocked_by: 'killer' });
      expect(report.error.code).toBe(-32603);
      expect(report.error.message).toContain('killed by signal 9');
      expect(report.error.message).toContain('extension "killer" raised an uncaught exception');
      // Every later call too, at once, saying the same.
      expect(report.later).toEqual(report.error);
    },
    30_000,
  );
});
