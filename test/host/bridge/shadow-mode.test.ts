import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built } from '../../support/run-bin.js';

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** The real bridge process, answering one request at a time. */
function bridge(home: string, cwd: string) {
  const child = spawn(process.execPath, [bin, 'extensions', 'serve', '--stdio', '--cwd', cwd], {
    env: { ...process.env, HERMES_HOME: home },
  }) as ChildProcessWithoutNullStreams;
  children.push(child);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return async (id: number, method: string, params: unknown) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const { value } = await lines.next();
    return JSON.parse(String(value)) as Record<string, unknown>;
  };
}

describe.runIf(built)('hermes extensions serve --stdio: a guard in shadow mode', () => {
  it('lets the call run and says in the trace what the guard would have done', async () => {
    const home = tree({
      'extensions/new-guard.ts': tsExtension(
        'new-guard',
        `hermes.on('intercept_tool_call', () => block('no writes yet'));`,
      ),
      'config.yaml': 'extensions:\n  new-guard:\n    mode: shadow\n',
    });
    const call = bridge(home, tree({ '.git/HEAD': '' }));
    expect(await call(1, 'turn/start', { session_id: 's', turn_id: 't' })).toMatchObject({
      result: { turn_id: 't' },
    });
    const answer = await call(2, 'intercept_tool_call', {
      turn_id: 't',
      tool_name: 'write',
      tool_args: { path: 'src/x.ts' },
    });
    expect(answer).toMatchObject({ result: { blocked: false, changed: false } });
    expect((answer.result as { trace: unknown[] }).trace).toEqual([
      expect.objectContaining({
        extension: 'new-guard',
        action: 'pass',
        shadow: { action: 'block', message: 'no writes yet' },
      }),
    ]);
  });
});
