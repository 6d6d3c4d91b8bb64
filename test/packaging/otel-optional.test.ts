import { cpSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OTEL_PACKAGES } from '../../extensions/otel/packages.js';
import { hermes } from '../cli/hermes-cli.js';
import { tree, write } from '../support/fixtures.js';
import { built, root } from '../support/run-bin.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

const otelOf = (deps: Record<string, string>) =>
  Object.fromEntries(Object.entries(deps).filter(([name]) => name.startsWith('@opentelemetry/')));

const installCommand = `npm install ${Object.entries(OTEL_PACKAGES)
  .map(([name, range]) => `${name}@${range}`)
  .join(' ')}`;

describe('OpenTelemetry is optional', () => {
  it('is not installed with hermes-extensions: an optional peer, and a devDependency for its own tests', () => {
    expect(otelOf(manifest.dependencies)).toEqual({});
    expect(otelOf(manifest.peerDependencies)).toEqual(OTEL_PACKAGES);
    expect(otelOf(manifest.devDependencies)).toEqual(OTEL_PACKAGES);
    for (const name of Object.keys(OTEL_PACKAGES)) {
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
    }
  });
});

describe.runIf(built)('the otel extension in an install without OpenTelemetry', () => {
  /**
   * A project whose node_modules holds hermes-extensions' otel extension and no OpenTelemetry, as
   * a default install leaves it, enabled from the user's config.
   */
  function installWithoutOtel() {
    const project = tree({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const otel = join(project, 'node_modules/hermes-extensions/extensions/otel');
    cpSync(join(root, 'extensions/otel'), otel, {
      recursive: true,
      filter: (source) => !source.endsWith('.test.ts'),
    });
    const home = tree();
    write(home, { 'config.yaml': `extensions:\n  paths:\n    - ${otel}\n` });
    return { project, home, otel };
  }

  it('fails to load, naming what is missing and the command that installs it', async () => {
    const { project, home, otel } = installWithoutOtel();
    const list = await hermes(home, 'extensions', 'list', '--json', '--cwd', project);
    const [info] = JSON.parse(list.stdout) as Array<{
      name: string;
      status: string;
      code: string;
      reason: string;
    }>;
    expect(info).toMatchObject({ name: 'otel', status: 'error', code: 'LOAD_FAILED' });
    expect(info?.reason).toContain(join(otel, 'index.ts'));
    expect(info?.reason).toContain(`run \`${installCommand}\` in ${project}`);
    expect(info?.reason).toContain(`missing: ${Object.keys(OTEL_PACKAGES).join(', ')})`);
    expect(info?.reason).not.toMatch(/Cannot find module/);
  });

  it('blocks tool calls as any extension that failed to load does', async () => {
    const { project, home } = installWithoutOtel();
    const run = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--cwd',
      project,
      '--json',
      '--input',
      JSON.stringify({ toolName: 'write', toolArgs: { path: 'src/a.ts' } }),
    );
    expect(run.code).toBe(1);
    const { outcome } = JSON.parse(run.stdout) as {
      outcome: { blocked: boolean; message: string };
    };
    expect(outcome.blocked).toBe(true);
    expect(outcome.message).toContain('extension "otel"');
    expect(outcome.message).toContain(`OpenTelemetry is not installed: run \`${installCommand}\``);
  });

  it('names only the packages that are missing', async () => {
    const { project, home } = installWithoutOtel();
    // The user's project has two of them (another tool of theirs brought them in).
    for (const name of ['@opentelemetry/api', '@opentelemetry/resources']) {
      cpSync(join(root, 'node_modules', name), join(project, 'node_modules', name), {
        recursive: true,
        dereference: true,
      });
    }
    const list = await hermes(home, 'extensions', 'list', '--json', '--cwd', project);
    const [info] = JSON.parse(list.stdout) as Array<{ reason: string }>;
    expect(info?.reason).toContain(
      'missing: @opentelemetry/exporter-metrics-otlp-http, @opentelemetry/exporter-trace-otlp-http, @opentelemetry/sdk-metrics, @opentelemetry/sdk-trace-base)',
    );
  });

  it('loads once they are installed', async () => {
    const { project, home } = installWithoutOtel();
    symlinkSync(
      join(root, 'node_modules/@opentelemetry'),
      join(project, 'node_modules/@opentelemetry'),
    );
    const list = await hermes(home, 'extensions', 'list', '--json', '--cwd', project);
    const [info] = JSON.parse(list.stdout) as Array<{ name: string; status: string }>;
    expect(info).toMatchObject({ name: 'otel', status: 'enabled' });
  });
});
