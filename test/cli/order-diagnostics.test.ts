import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
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
