import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  installHermesPlugin,
  PLUGIN_SOURCE,
  uninstallHermesPlugin,
} from '../../src/host/hermes-agent/plugin-install.js';
import { hermesPluginStatus } from '../../src/host/hermes-agent/plugin-status.js';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { tree } from '../support/fixtures.js';

const read = (file: string) => readFileSync(file, 'utf8');

/** A Hermes config as users have them: comments, other sections, other plugins. */
const CONFIG = `# Hermes agent settings
model:
  default: anthropic/claude-sonnet-4.6   # the usual one
  provider: openrouter

plugins:
  enabled:
    - disk-cleanup   # keep
  disabled:
    - noisy-plugin
    - hermes-extensions
  hook_callback_timeout: 30

hooks:
  pre_tool_call:
    - matcher: "terminal"
      command: "~/.hermes/agent-hooks/check.sh"
      timeout: 10
`;

describe('installing the Hermes agent plugin', () => {
  it('copies the plugin into plugins/, records the package and Node, and enables it', () => {
    const home = join(tree(), '.hermes');
    const done = installHermesPlugin({ hermesHome: home });
    const dir = join(home, 'plugins', 'hermes-extensions');
    expect(done).toEqual({
      pluginDir: dir,
      configFile: join(home, 'config.yaml'),
      enabled: true,
      undisabled: false,
    });
    const shipped = readdirSync(PLUGIN_SOURCE).filter((f) => f !== '__pycache__');
    expect(readdirSync(dir).sort()).toEqual([...shipped, 'install.json'].sort());
    expect(read(join(dir, 'hooks.py'))).toBe(read(join(PLUGIN_SOURCE, 'hooks.py')));
    expect(JSON.parse(read(join(dir, 'install.json')))).toEqual({
      installed_by: 'hermes-extensions',
      version: JSON.parse(read(join(PACKAGE_ROOT, 'package.json'))).version,
      package_root: PACKAGE_ROOT,
      node: process.execPath,
      // Install made config.yaml: uninstall takes it out again, when nothing else is in it.
      config_created: 'file',
    });
    expect(read(join(home, 'config.yaml'))).toBe('plugins:\n  enabled:\n    - hermes-extensions\n');
  });

  it('installed twice (an upgrade), uninstall still takes out what the first install made', () => {
    for (const config of [undefined, 'model: x\n', 'model: x\nplugins:\n  disabled: [a]\n']) {
      const home = tree(config === undefined ? {} : { 'config.yaml': config });
      installHermesPlugin({ hermesHome: home });
      installHermesPlugin({ hermesHome: home });
      uninstallHermesPlugin({ hermesHome: home });
      const file = join(home, 'config.yaml');
      expect(existsSync(file) ? read(file) : undefined).toBe(config);
      expect(readdirSync(home)).toEqual(config === undefined ? [] : ['config.yaml']);
    }
  });

  it('changes only the plugin lists of an existing config, and a second install nothing', () => {
    const home = tree({ 'config.yaml': CONFIG });
    const file = join(home, 'config.yaml');
    expect(installHermesPlugin({ hermesHome: home })).toMatchObject({
      enabled: true,
      undisabled: true,
    });
    expect(read(file)).toBe(
      CONFIG.replace(
        '    - disk-cleanup   # keep\n',
        '    - disk-cleanup   # keep\n    - hermes-extensions\n',
      ).replace('    - hermes-extensions\n  hook_callback_timeout', '  hook_callback_timeout'),
    );
    const once = read(file);
    expect(installHermesPlugin({ hermesHome: home })).toMatchObject({
      enabled: false,
      undisabled: false,
    });
    expect(read(file)).toBe(once);
  });

  it('writes a linked config where the link leads, keeping the link and the mode', () => {
    const dotfiles = tree({ 'hermes.yaml': CONFIG });
    const home = tree({});
    const target = join(dotfiles, 'hermes.yaml');
    chmodSync(target, 0o640);
    symlinkSync(target, join(home, 'config.yaml'));
    installHermesPlugin({ hermesHome: home });
    expect(lstatSync(join(home, 'config.yaml')).isSymbolicLink()).toBe(true);
    expect(parse(read(target)).plugins.enabled).toContain('hermes-extensions');
    expect(statSync(target).mode & 0o777).toBe(0o640);
    uninstallHermesPlugin({ hermesHome: home });
    expect(lstatSync(join(home, 'config.yaml')).isSymbolicLink()).toBe(true);
    expect(parse(read(target)).plugins.enabled).not.toContain('hermes-extensions');
    expect(readdirSync(dotfiles)).toEqual(['hermes.yaml']);
  });

  it('keeps a flow list flow, and block lists level with their key', () => {
    const flow = tree({ 'config.yaml': 'plugins: {enabled: [a, b]}\nmodel: x\n' });
    installHermesPlugin({ hermesHome: flow });
    expect(read(join(flow, 'config.yaml'))).toBe(
      'plugins: {enabled: [a, b, hermes-extensions]}\nmodel: x\n',
    );
    const level = 'plugins:\n  enabled:\n  - a\ntoolsets:\n- web\n';
    const home = tree({ 'config.yaml': level });
    installHermesPlugin({ hermesHome: home });
    expect(read(join(home, 'config.yaml'))).toBe(
      'plugins:\n  enabled:\n  - a\n  - hermes-extensions\ntoolsets:\n- web\n',
    );
  });

  it('leaves a folder it did not write alone, and a config it cannot read', () => {
    const home = tree({ 'plugins/hermes-extensions/plugin.yaml': 'name: hermes-extensions\n' });
    expect(() => installHermesPlugin({ hermesHome: home })).toThrow(
      `${join(home, 'plugins/hermes-extensions')} is there and was not installed by hermes-extensions`,
    );
    expect(read(join(home, 'plugins/hermes-extensions/plugin.yaml'))).toBe(
      'name: hermes-extensions\n',
    );
    for (const [config, why] of [
      ['plugins: [a]\n', 'plugins in .* is not a mapping'],
      ['plugins:\n  enabled: yes\n', 'plugins.enabled in .* is not a list'],
      ['plugins: {enabled: [a\n', 'is not valid YAML'],
    ] as const) {
      const broken = tree({ 'config.yaml': config });
      expect(() => installHermesPlugin({ hermesHome: broken })).toThrow(new RegExp(why));
      expect(read(join(broken, 'config.yaml'))).toBe(config);
    }
  });

  it('uninstalls: the folder and the plugins.enabled entry go, the rest of the config stays', () => {
    const home = tree({ 'config.yaml': CONFIG });
    installHermesPlugin({ hermesHome: home });
    const done = uninstallHermesPlugin({ hermesHome: home });
    expect(done).toMatchObject({ removed: true, disabled: true });
    expect(existsSync(join(home, 'plugins/hermes-extensions'))).toBe(false);
    const config = parse(read(join(home, 'config.yaml')));
    expect(config.plugins.enabled).toEqual(['disk-cleanup']);
    expect(read(join(home, 'config.yaml'))).toContain('# Hermes agent settings');
    expect(uninstallHermesPlugin({ hermesHome: home })).toMatchObject({
      removed: false,
      disabled: false,
    });
  });

  it('defaults to $HERMES_HOME, the agent’s home as it finds it', () => {
    const home = tree();
    const before = process.env.HERMES_HOME;
    process.env.HERMES_HOME = home;
    try {
      expect(installHermesPlugin().pluginDir).toBe(join(home, 'plugins/hermes-extensions'));
    } finally {
      if (before === undefined) delete process.env.HERMES_HOME;
      else process.env.HERMES_HOME = before;
    }
  });
});

describe('whether the Hermes agent runs the plugin (for doctor)', () => {
  it('installed, current and enabled: no problems', () => {
    const home = tree();
    installHermesPlugin({ hermesHome: home });
    expect(hermesPluginStatus({ hermesHome: home })).toEqual({
      pluginDir: join(home, 'plugins/hermes-extensions'),
      installed: true,
      enabled: true,
      problems: [],
      // Until Hermes loads it, the plugin has recorded nothing (doctor says to start Hermes).
      registration: { missing: 'Hermes has not loaded the plugin since it was installed' },
    });
  });

  it('says what is wrong and what to do: missing, stale, disabled', () => {
    const missing = hermesPluginStatus({ hermesHome: tree() });
    expect(missing).toMatchObject({ installed: false, enabled: false });
    expect(missing.problems[0]).toMatch(/^the plugin is not installed in .*; install it$/);

    const home = tree();
    const { pluginDir } = installHermesPlugin({ hermesHome: home });
    const record = JSON.parse(read(join(pluginDir, 'install.json')));
    writeFileSync(join(pluginDir, 'install.json'), JSON.stringify({ ...record, version: '0.0.1' }));
    writeFileSync(
      join(home, 'config.yaml'),
      'plugins:\n  enabled: [hermes-extensions]\n  disabled: [hermes-extensions]\n',
    );
    const status = hermesPluginStatus({ hermesHome: home });
    expect(status).toMatchObject({ installed: true, enabled: false });
    expect(status.problems).toEqual([
      expect.stringMatching(
        /is of hermes-extensions 0\.0\.1 at .*, not this one .*; install it again with the copy Hermes should run$/,
      ),
      expect.stringMatching(
        /^plugins\.disabled of .* names hermes-extensions, so Hermes does not load it/,
      ),
    ]);
  });

  it('installed by another copy of this release (a global install, a project’s): no problems', () => {
    const home = tree();
    const { pluginDir } = installHermesPlugin({ hermesHome: home });
    const record = JSON.parse(read(join(pluginDir, 'install.json')));
    const other = tree({
      'package.json': read(join(PACKAGE_ROOT, 'package.json')),
    });
    const installedBy = (packageRoot: string) =>
      writeFileSync(
        join(pluginDir, 'install.json'),
        JSON.stringify({ ...record, package_root: packageRoot }),
      );
    installedBy(other);
    const status = hermesPluginStatus({ hermesHome: home });
    expect(status.problems).toEqual([]);
    expect(status.installedBy).toBe(other);

    // That copy gone: the plugin would start a bridge that is not there.
    installedBy(join(other, 'gone'));
    expect(hermesPluginStatus({ hermesHome: home }).problems).toEqual([
      expect.stringMatching(/is of hermes-extensions .* at .*gone, not this one/),
    ]);

    // Same version, other plugin code (a copy edited, a build of another checkout): not the same.
    installedBy(other);
    writeFileSync(join(pluginDir, 'hooks.py'), `${read(join(pluginDir, 'hooks.py'))}\n# edited\n`);
    expect(hermesPluginStatus({ hermesHome: home }).problems).toHaveLength(1);
  });
});
