import { ConfigError, loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';

const quiet = { logger: memoryLogger() };

/** An extension that reports its parsed config by blocking with it. */
const configEcho = tsExtension(
  'echo',
  `hermes.on('transform_user_input', () => block(JSON.stringify(hermes.config)));`,
);

async function echoedConfig(runtime: Awaited<ReturnType<typeof loadRuntime>>) {
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('x'));
  return JSON.parse(outcome.blocked ? outcome.message : 'null');
}

describe('config files', () => {
  it('reads the global config.yaml and feeds each extension its section', async () => {
    const home = tree({
      'config.yaml':
        "# the user's settings\nmodel: some-model\nextensions:\n  echo:\n    level: 2\n",
      'extensions/echo.ts': configEcho,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(await echoedConfig(runtime)).toEqual({ level: 2 });
  });

  it.each([
    [
      'hermes.config.ts',
      `import { defineConfig } from 'hermes-extensions';\nenum Level { High = 3 }\nexport default defineConfig({ extensions: { echo: { level: Level.High } } });`,
    ],
    ['hermes.config.mjs', `export default { extensions: { echo: { level: 3 } } };`],
    ['.hermesrc.json', JSON.stringify({ extensions: { echo: { level: 3 } } })],
    ['.hermesrc.yaml', 'extensions:\n  echo:\n    level: 3\n'],
    ['package.json', JSON.stringify({ name: 'p', hermes: { extensions: { echo: { level: 3 } } } })],
    ['.hermes/config.yaml', 'extensions:\n  echo:\n    level: 3\n'],
  ])('reads project config from %s, over the global one', async (file, content) => {
    const home = tree({
      'config.yaml': 'extensions:\n  echo:\n    level: 1\n    keep: true\n',
      'extensions/echo.ts': configEcho,
    });
    const project = tree({ '.git/HEAD': '', [file]: content });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(runtime.diagnostics).toEqual([]);
    expect(await echoedConfig(runtime)).toEqual({ level: 3, keep: true });
  });

  it('searches project config from the working directory up to the project root', async () => {
    const home = tree({ 'extensions/echo.ts': configEcho });
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.json': JSON.stringify({ extensions: { echo: { from: 'root' } } }),
      'packages/app/.hermesrc.json': JSON.stringify({ extensions: { echo: { from: 'app' } } }),
      'packages/lib/src/deep/file.txt': '',
    });
    const fromApp = await loadRuntime({
      home,
      cwd: `${project}/packages/app`,
      trust: true,
      ...quiet,
    });
    expect(await echoedConfig(fromApp)).toEqual({ from: 'app' });
    const fromDeep = await loadRuntime({
      home,
      cwd: `${project}/packages/lib/src/deep`,
      trust: true,
      ...quiet,
    });
    expect(await echoedConfig(fromDeep)).toEqual({ from: 'root' });
    expect(fromDeep.projectRoot).toBe(project);
  });

  it('rejects a config file that does not parse, naming the file', async () => {
    const home = tree({ 'config.yaml': 'extensions:\n  echo: [unclosed\n' });
    const loading = loadRuntime({ home, cwd: tree(), ...quiet });
    await expect(loading).rejects.toBeInstanceOf(ConfigError);
    await expect(loading).rejects.toThrow(`${home}/config.yaml`);
  });

  it('rejects an invalid config, naming the file and the key path', async () => {
    const home = tree({ 'config.yaml': 'extensions:\n  paths: ./not-a-list\n' });
    await expect(loadRuntime({ home, cwd: tree(), ...quiet })).rejects.toThrow(
      new RegExp(`${home}/config.yaml[\\s\\S]*extensions\\.paths`),
    );
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.json': '{ "extensions": { "enabled": "yes" } }',
    });
    await expect(
      loadRuntime({ home: tree(), cwd: project, trust: true, ...quiet }),
    ).rejects.toThrow(/\.hermesrc\.json[\s\S]*extensions\.enabled/);
  });

  it('resolves extensions.paths relative to the config file that names them', async () => {
    const base = tree({
      'home/config.yaml': 'extensions:\n  paths: [./shared/one, ../elsewhere/two.ts]\n',
      'home/shared/one/index.ts': tsExtension('one'),
      'elsewhere/two.ts': tsExtension('two'),
    });
    const runtime = await loadRuntime({ home: `${base}/home`, cwd: tree(), ...quiet });
    expect(runtime.extensions.map((e) => [e.name, e.source, e.status, e.path])).toEqual([
      ['one', 'path', 'enabled', `${base}/home/shared/one`],
      ['two', 'path', 'enabled', `${base}/elsewhere/two.ts`],
    ]);
  });

  it('loads an installed package named in extensions.paths', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  paths: [hermes-ext-audit]\n',
      'node_modules/hermes-ext-audit/package.json': JSON.stringify({
        name: 'hermes-ext-audit',
        type: 'module',
        main: 'main.js',
      }),
      'node_modules/hermes-ext-audit/main.js': `import { defineExtension } from 'hermes-extensions';\nexport default defineExtension({ name: 'audit', setup() {} });`,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.extensions).toMatchObject([
      { name: 'audit', source: 'package', status: 'enabled' },
    ]);
    const missing = tree({ 'config.yaml': 'extensions:\n  paths: [not-installed-anywhere]\n' });
    const broken = await loadRuntime({ home: missing, cwd: tree(), ...quiet });
    expect(broken.diagnostics[0]?.message).toMatch(
      /package "not-installed-anywhere".*not installed/,
    );
  });
});
