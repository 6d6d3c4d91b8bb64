import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';

const quiet = { logger: memoryLogger() };

/** How many times each module of the test was evaluated, counted through `globalThis`. */
const KEY = '__hermesReloadEvaluations';
const evaluations = () =>
  ((globalThis as Record<string, unknown>)[KEY] ?? {}) as Record<string, number>;
const count = (name: string) =>
  `globalThis.${KEY} ??= {}; globalThis.${KEY}['${name}'] = (globalThis.${KEY}['${name}'] ?? 0) + 1;`;

afterEach(() => {
  delete (globalThis as Record<string, unknown>)[KEY];
});

/** A JavaScript extension that blocks every prompt with what its helper module says. */
const entry = (name: string, helper: string) => `import { said } from '${helper}';
${count(name)}
export default {
  name: '${name}',
  setup(hermes) {
    hermes.on('transform_user_input', () => ({ action: 'block', value: said() }));
  },
};
`;
const helper = (text: string, name = 'helper') => `${count(name)}
export const said = () => ${JSON.stringify(text)};
`;

/** What the extensions say, one runtime loaded afresh from `home`; load errors instead if any. */
async function said(home: string): Promise<string[]> {
  const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
  const errors = runtime.extensions.filter((e) => e.status !== 'enabled');
  if (errors.length > 0) return errors.map((e) => `${e.name}: ${e.reason}`);
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('x'));
  return [outcome.blocked ? outcome.message : ''];
}

describe('a JavaScript extension loaded again in the same process', () => {
  it('sees an edit to a module it imports, and to one that module imports', async () => {
    const home = tree({
      'extensions/speaker/index.mjs': entry('speaker', './lib/say.mjs'),
      'extensions/speaker/lib/say.mjs': `export { said } from './words.mjs';\n${count('say')}`,
      'extensions/speaker/lib/words.mjs': helper('first', 'words'),
    });
    expect(await said(home)).toEqual(['first']);
    write(home, { 'extensions/speaker/lib/words.mjs': helper('second, edited', 'words') });
    expect(await said(home)).toEqual(['second, edited']);
    write(home, { 'extensions/speaker/lib/say.mjs': `export const said = () => 'rewritten';` });
    expect(await said(home)).toEqual(['rewritten']);
  });

  it('sees an edit to a helper of a single-file extension', async () => {
    const home = tree({
      'extensions/single.mjs': entry('single', './shared/helper.mjs'),
      'extensions/shared/helper.mjs': helper('before'),
    });
    expect(await said(home)).toEqual(['before']);
    write(home, { 'extensions/shared/helper.mjs': helper('after the edit') });
    expect(await said(home)).toEqual(['after the edit']);
  });

  it('recovers once a broken helper is fixed', async () => {
    const home = tree({
      'extensions/speaker/index.mjs': entry('speaker', './helper.mjs'),
      'extensions/speaker/helper.mjs': 'export const said = (',
    });
    expect((await said(home))[0]).toMatch(/^speaker: could not load/);
    write(home, { 'extensions/speaker/helper.mjs': helper('fixed') });
    expect(await said(home)).toEqual(['fixed']);
  });

  it('does not evaluate its modules again while none of them changed', async () => {
    const home = tree({
      'extensions/speaker/index.mjs': entry('speaker', './helper.mjs'),
      'extensions/speaker/helper.mjs': helper('same'),
    });
    for (let i = 0; i < 3; i++) expect(await said(home)).toEqual(['same']);
    expect(evaluations()).toEqual({ speaker: 1, helper: 1 });
  });
});

/** An extension that appends what its import says to the prompt, so several can answer at once. */
const appender = (name: string, importLine: string, value: string) => `${importLine}
export default {
  name: '${name}',
  setup(hermes) {
    hermes.on('transform_user_input', (e) => ({ action: 'rewrite', value: e.userMessage + ' ' + ${value} }));
  },
};
`;

async function prompt(home: string): Promise<string> {
  const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
  const broken = runtime.extensions.filter((e) => e.status !== 'enabled');
  if (broken.length > 0) return broken.map((e) => `${e.name}: ${e.reason}`).join('; ');
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('>'));
  return outcome.value as string;
}

describe('a JavaScript extension in each module format', () => {
  it('sees edits to .js helpers (typed or not), JSON it imports; a CommonJS helper keeps loading', async () => {
    const home = tree({
      'extensions/a-untyped/index.js': appender(
        'a-untyped',
        `import { said } from './helper.js';`,
        'said()',
      ),
      'extensions/a-untyped/helper.js': `export const said = () => 'untyped-1';`,
      'extensions/b-typed/package.json': '{ "type": "module" }',
      'extensions/b-typed/index.js': appender(
        'b-typed',
        `import { said } from './helper.js';`,
        'said()',
      ),
      'extensions/b-typed/helper.js': `export const said = () => 'typed-1';`,
      'extensions/c-json/index.mjs': appender(
        'c-json',
        `import data from './data.json' with { type: 'json' };`,
        'data.said',
      ),
      'extensions/c-json/data.json': '{ "said": "json-1" }',
      'extensions/d-cjs/index.mjs': appender(
        'd-cjs',
        `import helper from './helper.cjs';`,
        'helper.said()',
      ),
      'extensions/d-cjs/helper.cjs': `exports.said = () => 'cjs';`,
    });
    expect(await prompt(home)).toBe('> untyped-1 typed-1 json-1 cjs');
    write(home, {
      'extensions/a-untyped/helper.js': `export const said = () => 'untyped-two';`,
      'extensions/b-typed/helper.js': `export const said = () => 'typed-two';`,
      'extensions/c-json/data.json': '{ "said": "json-two" }',
    });
    expect(await prompt(home)).toBe('> untyped-two typed-two json-two cjs');
  });
});
