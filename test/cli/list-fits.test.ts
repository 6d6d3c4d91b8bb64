import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes, hermesOnTerminal, hermesWith } from './hermes-cli.js';

const description =
  'Keeps every change inside the plan the user approved, refuses writes outside the allowed folders and reminds the model of both before every request it makes';

const wordy = `import { defineExtension } from 'hermes-extensions';
export default defineExtension({
  name: 'wordy-guard',
  version: '1.0.0',
  description: '${description}',
  setup(hermes) {
    hermes.on('transform_user_input', () => undefined);
    hermes.on('before_llm_call', () => undefined);
    hermes.on('intercept_tool_call', () => undefined, { phase: 'validate', tools: ['write', 'edit', 'patch', 'bash', 'shell'] });
  },
});
`;

const widest = (text: string) =>
  Math.max(
    ...text
      .replace(/\r/g, '')
      .split('\n')
      .map((line) => line.length),
  );

describe.runIf(built)('hermes extensions list fits the terminal', () => {
  it('at 80 columns when not on a terminal, puts each description under its row, losing no word', async () => {
    const home = tree({ 'extensions/wordy-guard.ts': wordy });
    const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(run.code).toBe(0);
    expect(widest(run.stdout)).toBeLessThanOrEqual(80);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+SOURCE\s+VERSION\s+HOOKS$/);
    expect(lines[1]).toMatch(
      /^wordy-guard\s+enabled\s+global\s+1\.0\.0\s+transform_user_input@100$/,
    );
    // The hooks wrap in their column, a hook too long for it before its tool group.
    const hooksColumn = (lines[1] as string).indexOf('transform_user_input');
    const row = lines.slice(
      1,
      lines.findIndex((l) => l.startsWith('    Keeps')),
    );
    expect(row.map((l) => l.slice(hooksColumn))).toEqual([
      'transform_user_input@100',
      'before_llm_call@100',
      'intercept_tool_call@100:validate',
      '[write,edit,patch,+2]',
    ]);
    expect(run.stdout).toMatch(/\n {4}Keeps every change/);
    const words = run.stdout.split(/\s+/);
    for (const word of description.split(' ')) expect(words).toContain(word);
  });

  it('uses the width of the terminal it runs on, wrapping descriptions in their column', async () => {
    const home = tree({ 'extensions/wordy-guard.ts': wordy });
    const wide = await hermesOnTerminal(home, 140, `extensions list --cwd "${tree()}"`);
    const lines = wide.stdout.replace(/\r/g, '').split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+SOURCE\s+VERSION\s+HOOKS\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(
      /^wordy-guard\s+enabled\s+global\s+1\.0\.0\s+transform_user_input@100 before_llm_call@100\s+Keeps/,
    );
    const column = (lines[1] as string).indexOf('Keeps');
    expect(lines[2]?.slice(0, column).trim()).toBe(
      'intercept_tool_call@100:validate[write,edit,patch,+2]',
    );
    expect(lines[2]?.[column]).toMatch(/\S/);
    expect(widest(wide.stdout)).toBeGreaterThan(80);
    expect(widest(wide.stdout)).toBeLessThanOrEqual(140);
    const words = wide.stdout.split(/\s+/);
    for (const word of description.split(' ')) expect(words).toContain(word);
    const narrow = await hermesOnTerminal(home, 100, `extensions list --cwd "${tree()}"`);
    expect(narrow.stdout).toMatch(/wordy-guard/);
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(100);
  });

  it('never breaks a line inside a tool group, at 80 columns', async () => {
    const shellGuard = (name: string, extra: string) =>
      tsExtension(
        name,
        `hermes.on('intercept_tool_call', () => undefined, { phase: 'validate', tools: ['bash', 'shell']${extra} });
    hermes.on('before_llm_call', () => undefined);`,
        "import { P } from 'hermes-extensions';",
      );
    const home = tree({
      'extensions/wordy-guard.ts': wordy,
      'extensions/shell-guard-with-a-rather-long-name.ts': shellGuard(
        'shell-guard-with-a-rather-long-name',
        ", when: { command: P.string.startsWith('rm') }",
      ),
      'extensions/sg.ts': shellGuard('sg', ''),
      'extensions/regex-guard.ts': tsExtension(
        'regex-guard',
        `hermes.on('intercept_tool_call', () => undefined, { tools: [/^(?:b[\\s_.-]*a[\\s_.-]*s[\\s_.-]*h|s[\\s_.-]*h[\\s_.-]*e[\\s_.-]*l[\\s_.-]*l)$/i, 'write', 'edit', 'patch', 'apply_patch_with_a_long_name'] });`,
      ),
    });
    const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(run.code).toBe(0);
    expect(widest(run.stdout)).toBeLessThanOrEqual(80);
    const lines = run.stdout.split('\n');
    for (const line of lines) {
      expect(line.split('[').length, line).toBe(line.split(']').length);
    }
    expect(run.stdout).toMatch(/\[bash,shell\]/);
    expect(run.stdout).not.toMatch(/\[bash,\s*\n/);
  });

  it('leaves --json whole', async () => {
    const home = tree({ 'extensions/wordy-guard.ts': wordy });
    const run = await hermes(home, 'extensions', 'list', '--json', '--cwd', tree());
    expect(JSON.parse(run.stdout)[0].description).toBe(description);
  });
});

describe.runIf(built)('hermes extensions list and why an extension is not running', () => {
  it('shows the reason of an error row', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  strict:\n    level: high\n',
      'extensions/broken.ts': 'export default {',
      'extensions/strict.ts': `import { defineExtension } from 'hermes-extensions';\nimport { z } from 'zod';\nexport default defineExtension({ name: 'strict', configSchema: z.object({ level: z.number() }), setup() {} });`,
    });
    const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(widest(run.stdout)).toBeLessThanOrEqual(80);
    expect(run.stdout).toMatch(/broken\s+error\s+global\s+-\s+-\s+could not load/);
    expect(run.stdout).toMatch(/strict\s+error\s+global\s+-\s+-\s+config for "strict" in\s/);
  });

  it('with HERMES_TRUST_PROJECT=1, says the project is trusted for this run, not that it is ignored', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const run = await hermesWith({ HERMES_TRUST_PROJECT: '1' }, tree(), 'list', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/local\s+enabled\s+project/);
    expect(run.stdout).not.toMatch(/ignored/);
    expect(run.stdout).toContain(
      `Project ${project} is not trusted, but HERMES_TRUST_PROJECT=1 trusts it for this run`,
    );
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${project}`);
  });
});
