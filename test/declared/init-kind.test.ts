import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredExtension, runGuardCases } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { initDeclaredCommand } from '../../src/cli/commands/init-declared.js';
import { tree } from '../support/fixtures.js';

/**
 * `hermes extensions init NAME --kind …` scaffolds a declared extension: for cedar, a policy and
 * its test; for every kind, the config section to add. What it prints works once added: the
 * scaffolded policy passes the scaffolded test's table.
 */
function init(home: string, name: string, kind: string) {
  const lines: string[] = [];
  const io = {
    out: (text: string) => lines.push(text),
    err: () => {},
    color: false,
    interactive: false,
  };
  const run = initDeclaredCommand({ cwd: home, home }, name, kind, {}, io);
  return { run, lines };
}

/** The printed section (the indented block after "Add this to …"). */
function printedSection(lines: string[]): string {
  const start = lines.findIndex((line) => line.startsWith('Add this to'));
  return `${lines
    .slice(start + 2)
    .filter((line) => line.startsWith('  '))
    .map((line) => line.slice(2))
    .join('\n')}\n`;
}

describe('hermes extensions init --kind', () => {
  it('cedar: a policy and a test whose table it passes once the printed section is added', async () => {
    const home = tree();
    const { run, lines } = init(home, 'agent-policy', 'cedar');
    expect(await run).toBe(0);
    const policies = join(home, 'policies');
    expect(existsSync(join(policies, 'agent-policy.cedar'))).toBe(true);
    const test = readFileSync(join(policies, 'agent-policy.test.ts'), 'utf8');
    expect(test).toContain(
      "declaredExtension(new URL('../config.yaml', import.meta.url), 'agent-policy')",
    );

    writeFileSync(join(home, 'config.yaml'), printedSection(lines));
    const extension = await declaredExtension(join(home, 'config.yaml'), 'agent-policy');
    const results = await runGuardCases(extension, {
      intercept_tool_call: {
        pass: [
          { tool: 'bash', args: { command: 'git push origin main' } },
          { tool: 'read', args: { file_path: 'src/app.ts' } },
        ],
        block: [
          { tool: 'bash', args: { command: 'git push --force' }, message: 'force pushes' },
          {
            tool: 'write',
            args: { file_path: 'config/.env', content: 'KEY=1' },
            message: '.env files',
          },
        ],
      },
    });
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });

  it.each(['http', 'rego', 'judge'])(
    '%s: prints a section that validates, in shadow mode',
    async (kind) => {
      const home = tree();
      const { run, lines } = init(home, 'svc', kind);
      expect(await run).toBe(0);
      const section = printedSection(lines);
      expect(section).toContain(`kind: ${kind}`);
      expect(section).toContain('mode: shadow');
      writeFileSync(join(home, 'config.yaml'), section);
      await expect(declaredExtension(join(home, 'config.yaml'), 'svc')).resolves.toBeDefined();
    },
  );

  it('refuses a kind it does not know, and an existing policy', async () => {
    const home = tree({ 'policies/p.cedar': '' });
    await expect(init(home, 'x', 'opa').run).rejects.toThrow(
      /--kind takes cedar, http, rego, judge/,
    );
    await expect(init(home, 'p', 'cedar').run).rejects.toThrow(/already exists/);
  });
});
