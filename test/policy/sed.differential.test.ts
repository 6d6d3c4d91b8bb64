import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { changes, isGnu, random, run, snapshot } from './differential.js';

/**
 * The sed reader (src/policy/shell/sed.ts) against GNU sed: scripts generated from sed's grammar
 * (addresses, every command, labels, white space, `w`/`W`/`e`/`s///w`/`s///e`/`r`), each judged
 * by the analysis; every one called read-only is run by the real sed, which must write nothing
 * and run nothing. Commands that run something only `touch` a file, so running is seen as a
 * change of the folder.
 */

const INPUT = 'touch ran-pattern.txt\nalpha\nbeta w\n';
const FILES = ['out.txt', 'out w.txt', ' out.txt', 'input.txt', 'o;ut.txt'];
const LABELS = ['x', 'end', 'x w out.txt', 'x;w out.txt', 'x\tw out.txt', 'x}', 'a#b', ''];
const SPACE = ['', ' ', '  ', '\t', ' \t '];

/**
 * sed's arguments for a generated script: one `-e`, or (GNU joins them with line breaks) the
 * script cut at its first line break into two `-e`, and now and then `-E`, `-s` or `-z`.
 */
function sedArgs(seed: number): string[] {
  const r = random(seed * 7919);
  const script = sedScript(seed);
  const cut = script.indexOf('\n');
  const scripts =
    cut !== -1 && r.chance(0.4)
      ? ['-e', script.slice(0, cut), '-e', script.slice(cut + 1)]
      : ['-e', script];
  const options = r.chance(0.3) ? [r.pick(['-E', '-s', '-z', '--posix'])] : [];
  return ['-n', ...options, ...scripts, 'input.txt'];
}

function sedScript(seed: number): string {
  const r = random(seed);
  const space = () => r.pick(SPACE);
  const address = (): string =>
    r.pick([
      '',
      '',
      '1',
      '$',
      '2',
      '/alpha/',
      '\\%beta%',
      '/a/I',
      '0~2',
      '1,2',
      '/alpha/,+1',
      '0,/beta/',
      '1,~2',
      `${r.int(3)}${space()},${space()}$`,
    ]);
  const command = (): string => {
    const file = r.pick(FILES);
    return r.pick([
      'p',
      'd',
      '=',
      'n',
      'N',
      'P',
      'D',
      'h',
      'H',
      'g',
      'G',
      'x',
      'l',
      'l 5',
      'q',
      'Q',
      'z',
      'F',
      `s/a/b/${r.pick(['', 'g', 'p', 'gI', '2', 'w ', 'e', 'pw ', 'm', 'M'])}${r.chance(0.5) ? file : ''}`,
      `s|a|touch ran-s.txt|${r.pick(['', 'e', 'g', 'ge'])}`,
      's/x/[/]/',
      'y/ab/ba/',
      `a${space()}text ; w ${file}`,
      `i\\\ntext w ${file}`,
      `c${space()}text`,
      `r${space()}${file}`,
      `R${space()}${file}`,
      `w${space()}${file}`,
      `W${space()}${file}`,
      `e${space()}touch ran-e.txt`,
      'e',
      `:${space()}${r.pick(LABELS)}`,
      `b${space()}${r.pick(LABELS)}`,
      `t${space()}${r.pick(LABELS)}`,
      `T${space()}${r.pick(LABELS)}`,
      `{${space()}p${space()}}`,
      '# comment w out.txt',
      `v${space()}${r.pick(['', '4.2', `4.2 w ${file}`, '4.2;w out.txt', `4.2\tr ${file}`])}`,
    ]);
  };
  const parts: string[] = [];
  const count = 1 + r.int(4);
  for (let i = 0; i < count; i++) {
    const negate = r.chance(0.15) ? `${space()}!` : '';
    parts.push(`${address()}${negate}${space()}${command()}`);
    if (i < count - 1) parts.push(r.pick([';', '\n', ' ; ', ';\n', ' ', '}']));
  }
  return parts.join('');
}

describe.skipIf(!isGnu('sed') && !process.env.CI)('sed reader against GNU sed', () => {
  it('a script it calls read-only writes and runs nothing', () => {
    const root = tree({ 'input.txt': INPUT });
    const wrong: string[] = [];
    let passed = 0;
    let ran = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const args = sedArgs(seed);
      if (analyzeShell(['sed', ...args], { root }).kind !== 'analyzed') continue;
      passed++;
      const before = snapshot(root);
      if (run('sed', args, root).status === 0) ran++;
      const changed = changes(before, snapshot(root));
      if (changed.length > 0) wrong.push(`${JSON.stringify(args)}: ${changed.join(' ')}`);
    }
    expect(wrong).toEqual([]);
    // The grammar must reach both sides: many scripts pass, and most of those really run.
    expect(passed).toBeGreaterThan(80);
    expect(ran).toBeGreaterThan(40);
  });

  it('the generated scripts do write and run: the check can fail', () => {
    const root = tree({ 'input.txt': INPUT });
    let changedSome = 0;
    for (let seed = 1; seed <= 400 && changedSome < 5; seed++) {
      const args = sedArgs(seed);
      if (analyzeShell(['sed', ...args], { root }).kind === 'analyzed') continue;
      const before = snapshot(root);
      run('sed', args, root);
      if (changes(before, snapshot(root)).length > 0) changedSome++;
    }
    expect(changedSome).toBe(5);
  });
});
