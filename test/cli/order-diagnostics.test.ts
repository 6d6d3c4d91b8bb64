import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { bin, built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const on = (options: string) => `hermes.on('intercept_tool_call', () => pass(), ${options});`;

/** Global extensions: one misspells the other in `after`, two name each other in `before`. */
function home(): string {
  return tree({
    'extensions/redactor.ts': tsExtension('redactor', on('{}')),
    'extensions/audit.ts': tsExtension('audit', on("{ after: 'redacter' }")),
    'extensions/ping.ts': tsExtension('ping', on("{ before: 'pong' }")),
    'extensions/pong.ts': tsExtension('pong', on("{ before: 'ping' }")),
    'extensions/maybe.ts': tsExtension('maybe', on("{ after: 'secret-scanner' }")),
  });
}

describe.runIf(built)('before/after problems in list and doctor', () => {
  it('list says each under the table, with the file and the fix', async () => {
    const dir = home();
    const run = await hermes(dir, 'extensions', 'list', '--cwd', tree());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^warning: "audit" names "redacter" .*did you mean "redactor"/m);
    expect(run.stdout).toMatch(/^warning: before\/after on intercept_tool_call form a cycle/m);
    expect(run.stdout).toMatch(/^info: "maybe" names "secret-scanner"/m);
    expect(run.stdout).toContain('extensions/audit.ts');
    expect(run.stdout).toMatch(/fix: correct the name in before\/after/);
    // The table shows each handler's order by name with its label.
    expect(run.stdout).toMatch(/^audit .*intercept_tool_call@100\(after:redacter\)/m);
    expect(run.stdout).toMatch(/^ping .*intercept_tool_call@100\(before:pong\)/m);
  });

  it('doctor reports them as warnings and infos, never errors, with the extension as subject', async () => {
    const run = await hermes(home(), 'extensions', 'doctor', '--json', '--cwd', tree());
    expect(run.code).toBe(0);
    const { checks } = JSON.parse(run.stdout) as {
      checks: Array<{ level: string; subject: string; message: string; code?: string }>;
    };
    const order = checks.filter((c) => c.code?.startsWith('ORDER_'));
    expect(order.map((c) => [c.code, c.level])).toEqual([
      ['ORDER_NOT_FOUND', 'warning'],
      ['ORDER_NOT_FOUND', 'info'],
      ['ORDER_CYCLE', 'warning'],
    ]);
    expect(order[0]?.subject).toMatch(/audit\.ts$/);
  });
});

describe.runIf(built)('before/after problems over the bridge', () => {
  it("are in initialize's diagnostics, with their codes", async () => {
    const child = spawn(
      process.execPath,
      [bin, 'extensions', 'serve', '--stdio', '--cwd', tree()],
      {
        env: { ...process.env, HERMES_HOME: home(), HERMES_TRUST_PROJECT: '' },
      },
    );
    try {
      const answer = new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once('line', resolve),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' })}\n`);
      const { result } = JSON.parse(await answer) as {
        result: { diagnostics: Array<{ code: string; extension?: string }> };
      };
      expect(
        result.diagnostics
          .filter((d) => d.code.startsWith('ORDER_'))
          .map((d) => [d.code, d.extension]),
      ).toEqual([
        ['ORDER_NOT_FOUND', 'audit'],
        ['ORDER_NOT_FOUND', 'maybe'],
        ['ORDER_CYCLE', 'ping'],
      ]);
    } finally {
      child.kill();
    }
  });
});
