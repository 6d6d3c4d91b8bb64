import { join } from 'node:path';
import { ConfigError, createRuntime, defineExtension, loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tree } from '../support/fixtures.js';
import { built, runBin } from '../support/run-bin.js';

const quiet = { logger: memoryLogger() };

/** An extension with the shape of workflow-guard's config: a few keys and a nested section. */
const planner = `import { defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({
  name: 'planner',
  configSchema: z.object({
    plan_path: z.string().default('plans/plan.md'),
    texts: z.object({ reminder: z.string().optional() }).default({}),
    rules: z.array(z.object({ tool: z.string() })).default([]),
  }),
  setup() {},
});
`;

/** The same with a schema that keeps every key, and one that is not an object at all. */
const loose = `import { defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({ name: 'loose', configSchema: z.looseObject({ a: z.string().optional() }), setup() {} });
`;
const anything = `import { defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({ name: 'anything', configSchema: z.record(z.string(), z.unknown()), setup() {} });
`;

type Runtime = Awaited<ReturnType<typeof loadRuntime>>;

function unknownKeyWarnings(runtime: Runtime) {
  return runtime.diagnostics.filter((d) => d.code === 'CONFIG_UNKNOWN_KEY');
}

describe('unknown config keys', () => {
  it('reports a misspelt top-level section of the global config.yaml, not the agent’s own sections', async () => {
    const home = tree({
      'config.yaml': 'model: some-model\nextension:\n  planner:\n    plan_path: x.md\n',
      'extensions/planner.ts': planner,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    const file = join(home, 'config.yaml');
    expect(unknownKeyWarnings(runtime)).toEqual([
      {
        severity: 'warning',
        code: 'CONFIG_UNKNOWN_KEY',
        kind: 'unknown-config-key',
        file,
        message: expect.stringMatching(
          /unknown key "extension" in .*config\.yaml \(did you mean "extensions"\?\)/,
        ),
      },
    ]);
    expect(unknownKeyWarnings(runtime)[0]?.message).toContain(file);
  });

  it('reports every unknown top-level key of a file that is hermes’ own', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '', '.hermesrc.yaml': 'extension: {}\ncolour: red\n' });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    const file = join(project, '.hermesrc.yaml');
    const warnings = unknownKeyWarnings(runtime);
    expect(warnings.map((d) => d.file)).toEqual([file, file]);
    expect(warnings[0]?.message).toMatch(/"extension" .*did you mean "extensions"/);
    expect(warnings[1]?.message).toMatch(/"colour"/);
    expect(warnings[1]?.message).not.toMatch(/did you mean/);
  });

  it.each([
    [
      '.hermesrc.yaml',
      'extensions:\n  planner:\n    plan_pth: x.md\n    texts:\n      remindr: hi\n',
    ],
    [
      '.hermesrc.json',
      JSON.stringify({ extensions: { planner: { plan_pth: 'x.md', texts: { remindr: 'hi' } } } }),
    ],
    [
      'package.json',
      JSON.stringify({
        name: 'p',
        hermes: { extensions: { planner: { plan_pth: 'x.md', texts: { remindr: 'hi' } } } },
      }),
    ],
    [
      'hermes.config.mjs',
      `export default { extensions: { planner: { plan_pth: 'x.md', texts: { remindr: 'hi' } } } };`,
    ],
    [
      'hermes.config.ts',
      `import { defineConfig } from 'hermes-extensions';\nexport default defineConfig({ extensions: { planner: { plan_pth: 'x.md', texts: { remindr: 'hi' } } } });`,
    ],
  ])(
    "reports unknown keys inside an extension's section in %s, nested ones too",
    async (name, content) => {
      const home = tree({ 'extensions/planner.ts': planner });
      const project = tree({ '.git/HEAD': '', [name]: content });
      const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
      const file = join(project, name);
      const warnings = unknownKeyWarnings(runtime);
      expect(warnings).toHaveLength(2);
      for (const warning of warnings) {
        expect(warning).toMatchObject({ severity: 'warning', extension: 'planner', file });
        expect(warning.message).toContain(file);
      }
      expect(warnings[0]?.message).toMatch(
        /unknown key "extensions\.planner\.plan_pth" .*\(did you mean "plan_path"\?\)/,
      );
      expect(warnings[1]?.message).toMatch(
        /unknown key "extensions\.planner\.texts\.remindr" .*\(did you mean "reminder"\?\)/,
      );
      // Still a warning: the extension loads with its defaults.
      expect(runtime.extensions[0]?.status).toBe('enabled');
    },
  );

  it('walks arrays of objects in a section', async () => {
    const home = tree({
      'config.yaml':
        'extensions:\n  planner:\n    rules:\n      - tool: write\n      - tol: edit\n',
      'extensions/planner.ts': planner,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(unknownKeyWarnings(runtime).map((d) => d.message)).toEqual([
      expect.stringMatching(/"extensions\.planner\.rules\.1\.tol" .*did you mean "tool"/),
    ]);
  });

  it('names the file each key came from when global and project config both configure an extension', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  planner:\n    plan_pth: a.md\n',
      'extensions/planner.ts': planner,
    });
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': 'extensions:\n  planner:\n    texts:\n      remindr: hi\n',
    });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(unknownKeyWarnings(runtime).map((d) => [d.file, d.message.split(' in ')[0]])).toEqual([
      [join(home, 'config.yaml'), 'unknown key "extensions.planner.plan_pth"'],
      [join(project, '.hermes/config.yaml'), 'unknown key "extensions.planner.texts.remindr"'],
    ]);
  });

  it('names the file of a section for an extension that was not found, with a did-you-mean', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  planer:\n    plan_path: x.md\n  disabled: [plannr]\n',
      'extensions/planner.ts': planner,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    const file = join(home, 'config.yaml');
    const messages = runtime.diagnostics.filter((d) => d.file === file).map((d) => d.message);
    expect(messages).toEqual([
      expect.stringMatching(
        /extensions\.planer in .*config\.yaml configures an extension that was not found \(did you mean "planner"\?\)/,
      ),
      expect.stringMatching(/extensions\.disabled in .*config\.yaml names "plannr".*"planner"/),
    ]);
    expect(runtime.diagnostics.find((d) => d.message.includes('planer'))?.code).toBe(
      'CONFIG_UNKNOWN_KEY',
    );
    expect(runtime.diagnostics.find((d) => d.message.includes('plannr'))?.code).toBe(
      'DISABLED_NOT_FOUND',
    );
  });

  it('suggests the loading key a misspelt scalar was meant to be', async () => {
    const home = tree({ 'config.yaml': 'extensions:\n  disable: [planner]\n' });
    const loading = loadRuntime({ home, cwd: tree(), ...quiet });
    await expect(loading).rejects.toBeInstanceOf(ConfigError);
    await expect(loading).rejects.toThrow(/extensions\.disable: .*did you mean "disabled"/);
  });

  it('says nothing about a schema that keeps unknown keys or is not an object', async () => {
    const home = tree({
      'config.yaml':
        'extensions:\n  loose:\n    b: 1\n  anything:\n    whatever: 2\n  planner:\n    plan_path: x.md\n',
      'extensions/loose.ts': loose,
      'extensions/anything.ts': anything,
      'extensions/planner.ts': planner,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.diagnostics).toEqual([]);
  });

  it('reports them for config handed to createRuntime, which has no file', async () => {
    const ext = defineExtension({
      name: 'inline',
      configSchema: z.object({ level: z.number().default(1) }),
      setup() {},
    });
    const runtime = await createRuntime({
      extensions: [ext],
      config: { extensions: { inline: { levl: 2 } } },
      ...quiet,
    });
    expect(runtime.diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'CONFIG_UNKNOWN_KEY',
        kind: 'unknown-config-key',
        extension: 'inline',
        message: expect.stringMatching(
          /unknown key "extensions\.inline\.levl" in createRuntime\(\{ config \}\) \(did you mean "level"\?\)/,
        ),
      },
    ]);
  });
});

describe.runIf(built)('hermes extensions doctor and unknown config keys', () => {
  it('shows each one with its file, key path and did-you-mean, as a warning', async () => {
    const home = tree({
      'config.yaml': 'extension: {}\nextensions:\n  planner:\n    plan_pth: x.md\n',
      'extensions/planner.ts': planner,
    });
    const env = { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' };
    const cwd = tree();
    const file = join(home, 'config.yaml');
    const run = await runBin(['extensions', 'doctor', '--cwd', cwd], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `! ${file}: unknown key "extension" in ${file} (did you mean "extensions"?)`,
    );
    expect(run.stdout).toContain(
      `! ${file}: unknown key "extensions.planner.plan_pth" in ${file} (did you mean "plan_path"?)`,
    );
    const json = await runBin(['extensions', 'doctor', '--json', '--cwd', cwd], env);
    const checks = JSON.parse(json.stdout).checks as Array<Record<string, string>>;
    expect(checks.filter((c) => c.message?.startsWith('unknown key'))).toEqual([
      expect.objectContaining({ level: 'warning', subject: file }),
      expect.objectContaining({ level: 'warning', subject: file }),
    ]);
    const list = await runBin(['extensions', 'list', '--cwd', cwd], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('unknown key "extensions.planner.plan_pth"');
  }, 30_000);
});
