import { join } from 'node:path';
import { createRuntime, type Diagnostic, defineExtension, loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built, runBin } from '../support/run-bin.js';

const quiet = { logger: memoryLogger() };

/** A global extensions folder with one extension broken in each way loading and setup can fail. */
function brokenHome(config = ''): string {
  return tree({
    ...(config ? { 'config.yaml': config } : {}),
    'extensions/healthy.ts': tsExtension(
      'healthy',
      `hermes.on('before_llm_call', () => undefined);`,
    ),
    'extensions/syntax.ts': 'export default defineExtension({ name: "syntax", setup( {',
    'extensions/no-default.ts': `export const name = 'no-default';`,
    'extensions/not-an-extension.mjs': `export default { name: 'Not Valid' };`,
    'extensions/setup-throws.ts': tsExtension('setup-throws', `throw new Error('setup exploded');`),
    // An error of the extension's own, whatever its `code`, is a setup failure.
    'extensions/own-code.ts': tsExtension(
      'own-code',
      `throw Object.assign(new Error('mine'), { code: 'UNKNOWN_HOOK' });`,
    ),
    'extensions/typo-hook.ts': tsExtension(
      'typo-hook',
      `hermes.on('intercept_toolcall' as never, () => undefined);`,
    ),
    'extensions/typo-event.ts': tsExtension(
      'typo-event',
      `hermes.observe('post_toolcall' as never, () => undefined);`,
    ),
    'extensions/bad-option.ts': tsExtension(
      'bad-option',
      `hermes.on('before_llm_call', () => undefined, { priority: Number.NaN });`,
    ),
    'extensions/configured.ts': `import { defineExtension } from 'hermes-extensions';\nimport { z } from 'zod';\nexport default defineExtension({ name: 'configured', configSchema: z.object({ level: z.number() }), setup() {} });`,
    'extensions/empty-folder/README.md': 'no entry here',
  });
}

const codeOf = (diagnostics: readonly Diagnostic[], extension: string) =>
  diagnostics.filter((d) => d.extension === extension).map((d) => d.code);

describe('diagnostic codes', () => {
  it('name the cause of each load and setup failure, on the diagnostic, the extension and the load failure', async () => {
    const home = brokenHome(
      'extensions:\n  configured:\n    level: high\n  nobody: {}\n  disabled: [helthy]\n  paths: [./nowhere]\n',
    );
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    const expected: Record<string, string> = {
      syntax: 'LOAD_FAILED',
      'no-default': 'NO_DEFAULT_EXPORT',
      'not-an-extension': 'NOT_AN_EXTENSION',
      'setup-throws': 'SETUP_FAILED',
      'own-code': 'SETUP_FAILED',
      'typo-hook': 'UNKNOWN_HOOK',
      'typo-event': 'UNKNOWN_EVENT',
      'bad-option': 'INVALID_REGISTRATION',
      configured: 'CONFIG_SCHEMA',
    };
    for (const [name, code] of Object.entries(expected)) {
      expect(codeOf(runtime.diagnostics, name), name).toEqual([code]);
      expect(
        runtime.extensions.find((e) => e.name === name),
        name,
      ).toMatchObject({
        status: 'error',
        code,
      });
      expect(runtime.loadFailures.find((f) => f.extension === name)?.code, name).toBe(code);
    }
    expect(runtime.extensions.find((e) => e.name === 'healthy')).not.toHaveProperty('code');
    // The message still says it for people; the code is what a program reads.
    const message = (code: string) => runtime.diagnostics.find((d) => d.code === code)?.message;
    expect(message('UNKNOWN_HOOK')).toMatch(/Did you mean "intercept_tool_call"/);
    expect(message('NO_ENTRY')).toMatch(/empty-folder has no extension entry/);
    expect(message('CONFIG_UNKNOWN_KEY')).toMatch(/extensions\.nobody .*not found/);
    expect(message('DISABLED_NOT_FOUND')).toMatch(/"helthy"/);
    expect(message('PATH_NOT_FOUND')).toMatch(/nowhere/);
    const config = join(home, 'config.yaml');
    expect(runtime.diagnostics.find((d) => d.code === 'PATH_NOT_FOUND')?.file).toBe(config);
    expect(runtime.loadFailures.find((f) => f.code === 'PATH_NOT_FOUND')?.file).toBe(config);
  });

  it('tell a timeout from a failure, in loading and in setup', async () => {
    const home = tree({
      'extensions/stuck.mjs': `await new Promise(() => {});\nexport default { name: 'x', setup() {} };\n`,
      'extensions/hangs.ts': tsExtension('hangs', 'return new Promise<void>(() => {});'),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), setupTimeoutMs: 200, ...quiet });
    expect(codeOf(runtime.diagnostics, 'stuck')).toEqual(['LOAD_TIMEOUT']);
    expect(codeOf(runtime.diagnostics, 'hangs')).toEqual(['SETUP_TIMEOUT']);
  }, 30_000);

  it('mark a slow load, a shadowed extension and an in-memory definition that is not one', async () => {
    const first = defineExtension({ name: 'twin', setup() {} });
    const second = defineExtension({ name: 'twin', setup() {} });
    const runtime = await createRuntime({
      extensions: [first, second, { name: 'Bad' } as never],
      ...quiet,
    });
    expect(runtime.diagnostics.map((d) => [d.extension, d.code])).toEqual([
      ['invalid-extension-2', 'NOT_AN_EXTENSION'],
      ['twin', 'SHADOWED'],
    ]);
    expect(runtime.extensions.filter((e) => e.code === 'SHADOWED')).toHaveLength(1);

    const home = tree({
      'extensions/slow.ts': tsExtension(
        'slow',
        'await new Promise((r) => setTimeout(r, 40));',
      ).replace('setup(hermes)', 'async setup(hermes)'),
    });
    const slow = await loadRuntime({ home, cwd: tree(), slowLoadMs: 20, ...quiet });
    expect(slow.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'SLOW_LOAD']]);
  });

  it('mark an untrusted project, and what a trusted project config may not do', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/local.ts': tsExtension('local'),
      '.hermes/config.yaml':
        'extensions:\n  global_dir: ./mine\n  no_sandbox: run\n  paths: [/elsewhere]\n',
      'bad-entry/package.json': JSON.stringify({ main: '../outside.js' }),
      'outside.js': 'export default {};',
    });
    const untrusted = await loadRuntime({ home, cwd: project, ...quiet });
    expect(untrusted.diagnostics.map((d) => d.code)).toEqual(['UNTRUSTED']);
    expect(untrusted.extensions).toMatchObject([
      { name: 'local', status: 'untrusted', code: 'UNTRUSTED' },
    ]);

    const trusted = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(trusted.diagnostics.map((d) => d.code).sort()).toEqual([
      'GLOBAL_DIR_IN_PROJECT',
      'NO_SANDBOX_IN_PROJECT',
      'PATH_OUTSIDE_PROJECT',
    ]);

    const global = tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(project, 'bad-entry'))}]\n`,
    });
    const refused = await loadRuntime({ home: global, cwd: tree(), ...quiet });
    expect(refused.diagnostics.map((d) => d.code)).toEqual(['ENTRY_OUTSIDE_FOLDER']);
  });
});

describe.runIf(built)('hermes extensions doctor and diagnostic codes', () => {
  const env = (home: string) => ({
    HERMES_HOME: home,
    HOME: home,
    CODEX_HOME: '',
    HERMES_TRUST_PROJECT: '',
  });

  it('gives each code its own advice, and the code with it in --json', async () => {
    const home = brokenHome(
      'extensions:\n  configured:\n    level: high\n  disabled: [helthy]\n  paths: [./nowhere]\n  on_load_error: warn\n',
    );
    const run = await runBin(['extensions', 'doctor', '--json', '--cwd', tree()], env(home));
    expect(run.code).toBe(1);
    const checks = JSON.parse(run.stdout).checks as Array<Record<string, string | undefined>>;
    const fixOf = (code: string) => {
      const found = checks.filter((c) => c.code === code);
      expect(found.length, code).toBeGreaterThan(0);
      expect(new Set(found.map((c) => c.fix)).size, code).toBe(1);
      return found[0]?.fix;
    };
    expect(fixOf('LOAD_FAILED')).toMatch(/run it through tsc or node/);
    expect(fixOf('NO_DEFAULT_EXPORT')).toMatch(/export default defineExtension/);
    expect(fixOf('NOT_AN_EXTENSION')).toMatch(/export what `defineExtension/);
    expect(fixOf('SETUP_FAILED')).toMatch(/setup\(hermes\) finish without throwing/);
    expect(fixOf('UNKNOWN_HOOK')).toMatch(
      /register on one of transform_user_input, before_llm_call, intercept_tool_call/,
    );
    expect(fixOf('UNKNOWN_EVENT')).toMatch(/observe one of .*post_tool_call/);
    expect(fixOf('INVALID_REGISTRATION')).toMatch(/hermes\.on, hermes\.observe or hermes\.onClose/);
    expect(fixOf('CONFIG_SCHEMA')).toMatch(/config section/);
    expect(fixOf('NO_ENTRY')).toMatch(/add an index\.ts/);
    expect(fixOf('DISABLED_NOT_FOUND')).toMatch(/extensions\.disabled/);
    expect(fixOf('PATH_NOT_FOUND')).toMatch(/extensions\.paths/);
    // own-code: a setup failure like setup-throws, not an unknown hook.
    expect(checks.filter((c) => c.code === 'SETUP_FAILED' || c.code === 'UNKNOWN_HOOK')).toEqual([
      expect.objectContaining({ subject: expect.stringMatching(/^own-code /) }),
      expect.objectContaining({ subject: expect.stringMatching(/^setup-throws /) }),
      expect.objectContaining({ subject: expect.stringMatching(/^typo-hook /) }),
    ]);
    // Every check that reports a diagnostic says what to do about it.
    for (const check of checks.filter((c) => c.code !== undefined)) expect(check.fix).toBeTruthy();

    const text = await runBin(['extensions', 'doctor', '--cwd', tree()], env(home));
    expect(text.stdout).toMatch(
      /✗ no-default \(global.*\n\s+fix: end the entry with `export default/,
    );
  }, 60_000);

  it('lists the code of an extension in error with list --json, and the bridge sends codes', async () => {
    const home = tree({ 'extensions/no-default.ts': `export const name = 'no-default';` });
    const list = await runBin(['extensions', 'list', '--json', '--cwd', tree()], env(home));
    expect(JSON.parse(list.stdout)).toMatchObject([
      { name: 'no-default', status: 'error', code: 'NO_DEFAULT_EXPORT' },
    ]);
    const bridge = await runBin(
      ['extensions', 'serve', '--stdio', '--cwd', tree()],
      env(home),
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' })}\n`,
    );
    const answer = JSON.parse(bridge.stdout.split('\n')[0] as string);
    expect(answer.result.diagnostics).toMatchObject([
      { code: 'NO_DEFAULT_EXPORT', severity: 'error', extension: 'no-default' },
    ]);
  }, 30_000);
});
