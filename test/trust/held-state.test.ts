import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntime, trustProject } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { blockedOutcome } from '../support/helpers.js';

/**
 * A trusted project whose config changes keeps the config it was trusted with, in every format
 * (src/trust/held-state.ts): read from the trusted copy, or for a code config run from the bundle
 * of the trust record, never from the file as it is now. What cannot be rebuilt refuses all.
 */
const quiet = { logger: memoryLogger() };

/** A guard that refuses every call, saying the word its config gives it. */
const GUARD = `import { block, defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({
  name: 'guard',
  configSchema: z.object({ word: z.string() }),
  setup(hermes) {
    hermes.on('intercept_tool_call', () => block('guard says ' + hermes.config.word));
  },
});
`;

const settings = (word: string, disabled: string[] = []) => ({
  extensions: { disabled, guard: { word } },
});
const yaml = (word: string, disabled: string[] = []) =>
  `extensions:\n  disabled: [${disabled.join(', ')}]\n  guard:\n    word: ${word}\n`;
const json = (word: string, disabled: string[] = []) => JSON.stringify(settings(word, disabled));
const code = (word: string, disabled: string[] = []) =>
  `export default ${JSON.stringify(settings(word, disabled))};\n`;

const FORMATS: Array<[string, (word: string, disabled?: string[]) => string]> = [
  ['.hermes/config.yaml', yaml],
  ['.hermes/config.yml', yaml],
  ['.hermesrc', yaml],
  ['.hermesrc.json', json],
  ['.hermesrc.yaml', yaml],
  [
    'package.json',
    (word, disabled) => JSON.stringify({ name: 'app', hermes: settings(word, disabled) }),
  ],
  ['hermes.config.ts', code],
  ['hermes.config.mjs', code],
];

async function trusted(file: string, content: (word: string, disabled?: string[]) => string) {
  const home = tree();
  const project = tree({
    '.git/HEAD': '',
    [file]: content('trusted'),
    '.hermes/extensions/guard.ts': GUARD,
  });
  const trust = await trustProject(project, home);
  expect(trust.state).toBe('trusted');
  return { home, project };
}

async function refusal(home: string, project: string) {
  const runtime = await loadRuntime({ home, cwd: project, ...quiet });
  try {
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'cat .env' } }),
    );
    const held = runtime.diagnostics.find((d) => d.code === 'TRUST_HELD');
    return { reason: blockedOutcome(outcome).message, held };
  } finally {
    await runtime.close();
  }
}

describe('a trusted project whose config changed keeps the config trusted', () => {
  for (const [file, content] of FORMATS) {
    it(`${file}: the trusted settings hold; the guard it disables still runs`, async () => {
      const { home, project } = await trusted(file, content);
      write(project, { [file]: content('changed', ['guard']) });
      const { reason, held } = await refusal(home, project);
      expect(reason).toBe('guard says trusted');
      expect(held?.severity).toBe('warning');
      expect(held?.message).toContain(`1 changed (${file})`);
    });
  }

  it('holds the config trusted when it is removed, or another format is added beside it', async () => {
    const { home, project } = await trusted('.hermes/config.yaml', yaml);
    // Found first, nearer than .hermes/config.yaml: but added since it was trusted.
    write(project, { '.hermesrc.json': json('changed', ['guard']) });
    rmSync(join(project, '.hermes/config.yaml'));
    const { reason, held } = await refusal(home, project);
    expect(reason).toBe('guard says trusted');
    expect(held?.message).toMatch(
      /1 added \(\.hermesrc\.json\), 1 removed \(\.hermes\/config\.yaml\)/,
    );
  });
});

describe('extensions the held config names in paths', () => {
  it('run as trusted; one added to the folder since is not found', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.json': JSON.stringify({
        extensions: { paths: ['./tools'], guard: { word: 'trusted' } },
      }),
      'tools/guard/index.ts': GUARD,
    });
    await trustProject(project, home);
    write(project, {
      'tools/guard/index.ts': GUARD.replace("block('guard says '", "String('guard says '"),
      'tools/added/index.ts': GUARD.replace("name: 'guard'", "name: 'added'"),
    });
    const runtime = await loadRuntime({ home, cwd: project, ...quiet });
    await runtime.close();
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([['guard', 'enabled']]);
    const { reason, held } = await refusal(home, project);
    expect(reason).toBe('guard says trusted');
    expect(held?.message).toMatch(
      /1 changed \(tools\/guard\/index\.ts\), 1 added \(tools\/added\/index\.ts\)/,
    );
  });
});

describe('what cannot be rebuilt refuses every tool call', () => {
  it('a data config whose trusted copy is gone', async () => {
    const { home, project } = await trusted('.hermes/config.yaml', yaml);
    for (const copy of readdirSync(join(home, 'trusted-copies'))) {
      rmSync(join(home, 'trusted-copies', copy));
    }
    write(project, { '.hermes/config.yaml': yaml('changed', ['guard']) });
    const { reason, held } = await refusal(home, project);
    expect(held?.severity).toBe('error');
    expect(reason).toMatch(/no copy is kept of \.hermes\/config\.yaml as it was trusted/);
    expect(reason).toMatch(/hermes extensions trust/);
  });

  it('a code config or an extension changed on disk whose kept bundle is gone, under on_load_error: warn', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      'hermes.config.ts': `export default ${JSON.stringify({ extensions: { on_load_error: 'warn', guard: { word: 'trusted' } } })};\n`,
      '.hermes/extensions/guard.ts': GUARD,
    });
    await trustProject(project, home);
    write(project, { '.hermes/extensions/guard.ts': GUARD.replace('block(', 'String(') });
    rmSync(join(home, 'cache', 'bundles'), { recursive: true });
    // The config as trusted holds (bundled again from unchanged bytes), the extension cannot be.
    const extension = await refusal(home, project);
    expect(extension.held?.severity).toBe('error');
    expect(extension.reason).toMatch(/guard\.ts, which changed since the project was trusted/);
    expect(extension.reason).toMatch(/hermes extensions trust/);

    write(project, { 'hermes.config.ts': code('changed', ['guard']) });
    rmSync(join(home, 'cache', 'bundles'), { recursive: true, force: true });
    const config = await refusal(home, project);
    expect(config.reason).toMatch(
      /hermes\.config\.ts, which changed since the project was trusted/,
    );
  });

  it('trusted for one run (HERMES_TRUST_PROJECT=1 / trust: true), the files on disk run', async () => {
    const { home, project } = await trusted('.hermes/config.yaml', yaml);
    write(project, { '.hermes/config.yaml': yaml('changed') });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } }),
    );
    expect(blockedOutcome(outcome).message).toBe('guard says changed');
    expect(runtime.diagnostics.some((d) => d.code === 'TRUST_HELD')).toBe(false);
    await runtime.close();
  });
});
