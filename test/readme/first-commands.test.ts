import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docExample, root } from './doc-blocks.js';

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);
const ci = readFileSync(join(root, '.ci/run'), 'utf8');

/** The commands of a sh block, comments and blank lines left out, `a && b` as two. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((line) => line.split('&&').map((part) => part.trim()));
}

/** The npm scripts a command runs (`npm run demo`, `npm test`), which must exist. */
function scriptsRun(command: string): string[] {
  const run = /^npm (?:run(?:-script)?|run) ([\w:-]+)/.exec(command)?.[1];
  if (run) return [run];
  const short = /^npm (test|start)\b/.exec(command)?.[1];
  return short ? [short] : [];
}

describe("the README's first commands, and the other npm commands the docs give", () => {
  it('README.md opens with two commands: set up and run the demo, and run the tests', () => {
    const block = docExample('first-commands');
    expect(block.page).toBe('README.md');
    expect(block.line).toBeLessThan(6);
    expect(commands(block.text)).toEqual(['npm install', 'npm run demo', 'npm test']);
  });

  it('CI runs what they run, on a clean clone: the demo and the tests, and the tests npm test leaves out', () => {
    expect(ci).toMatch(/^npm run demo$/m);
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).toMatch(/^npm run test:processes$/m);
    expect(ci).toMatch(/^npm run test:e2e$/m);
  });

  it('every npm script the blocks name exists in package.json', () => {
    const named = ['first-commands', 'contributing-setup', 'bench-command', 'size-command'].flatMap(
      (name) => commands(docExample(name).text).flatMap(scriptsRun),
    );
    expect(named).toEqual(expect.arrayContaining(['demo', 'test', 'bench', 'size']));
    expect(named.filter((script) => !scripts.includes(script))).toEqual([]);
    // It can fail: a script that is not there is found.
    expect(scriptsRun('npm run no-such-script').filter((s) => !scripts.includes(s))).toEqual([
      'no-such-script',
    ]);
  });
});
