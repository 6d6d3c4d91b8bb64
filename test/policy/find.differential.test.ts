import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { changes, isGnu, random, run, snapshot } from './differential.js';

/**
 * The find reader (src/policy/shell/find.ts) against GNU find: expressions generated from find's
 * grammar (global options, start points, tests, operators, every action: `-exec`, `-execdir`,
 * `-ok`, `-delete`, `-fprint`, `-fls`, `-fprintf`, …), each judged by the analysis; every one
 * called read-only is run by the real find, which must change nothing in the folder. The
 * programs an action would run only `touch` a file there, so running is seen as a change.
 */

const PRIMARIES: ReadonlyArray<(r: ReturnType<typeof random>) => string[]> = [
  () => ['-print'],
  () => ['-print0'],
  () => ['-ls'],
  () => ['-prune'],
  () => ['-quit'],
  () => ['-true'],
  () => ['-false'],
  () => ['-empty'],
  () => ['-depth'],
  (r) => ['-name', r.pick(['*.txt', 'keep', '-delete', '*'])],
  (r) => ['-iname', r.pick(['*.TXT', 'a*'])],
  (r) => ['-path', r.pick(['./sub/*', '*'])],
  (r) => ['-type', r.pick(['f', 'd', 'l'])],
  (r) => ['-maxdepth', r.pick(['0', '1', '2'])],
  (r) => ['-mindepth', r.pick(['0', '1'])],
  (r) => ['-newer', r.pick(['keep.txt', 'sub'])],
  () => ['-newermt', '2000-01-01'],
  (r) => ['-regex', r.pick(['.*txt', '.*'])],
  (r) => ['-printf', r.pick(['%p\\n', '%f'])],
  (r) => ['-size', r.pick(['-1k', '+0'])],
  () => ['-delete'],
  (r) => ['-exec', 'touch', r.pick(['ran.txt', '{}.ran']), r.pick([';', '+'])],
  (r) => ['-execdir', 'touch', r.pick(['ran.txt', '{}.ran']), r.pick([';', '+'])],
  () => ['-ok', 'touch', 'ran.txt', ';'],
  () => ['-okdir', 'touch', 'ran.txt', ';'],
  (r) => [r.pick(['-fprint', '-fprint0', '-fls']), r.pick(['out.txt', 'keep.txt'])],
  () => ['-fprintf', 'out.txt', '%p\\n'],
  () => ['-files0-from', 'keep.txt'],
];
const OPERATORS = ['-a', '-o', '-and', '-or', ',', '!', '-not'];

function findArgs(seed: number): string[] {
  const r = random(seed);
  const args: string[] = [];
  if (r.chance(0.2)) args.push(r.pick(['-H', '-L', '-P', '-O1']));
  const starts = r.int(3);
  for (let i = 0; i < starts; i++) args.push(r.pick(['.', 'sub', 'keep.txt']));
  const count = 1 + r.int(4);
  for (let i = 0; i < count; i++) {
    if (i > 0 && r.chance(0.4)) args.push(r.pick(OPERATORS));
    else if (r.chance(0.1)) args.push('!');
    const primary = r.pick(PRIMARIES)(r);
    if (r.chance(0.1)) args.push('(', ...primary, ')');
    else args.push(...primary);
  }
  return args;
}

describe.skipIf(!isGnu('find') && !process.env.CI)('find reader against GNU find', () => {
  const files = { 'keep.txt': 'k\n', 'sub/a.txt': 'a\n', 'sub/deep/b.txt': 'b\n' };

  it('an expression it calls read-only writes, deletes and runs nothing', () => {
    const root = tree(files);
    const wrong: string[] = [];
    let passed = 0;
    let ran = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const args = findArgs(seed);
      if (analyzeShell(['find', ...args], { root }).kind !== 'analyzed') continue;
      passed++;
      const before = snapshot(root);
      if (run('find', args, root).status === 0) ran++;
      const changed = changes(before, snapshot(root));
      if (changed.length > 0) wrong.push(`${JSON.stringify(args)}: ${changed.join(' ')}`);
    }
    expect(wrong).toEqual([]);
    // The grammar must reach both sides: many expressions pass, and most of those really run.
    expect(passed).toBeGreaterThan(60);
    expect(ran).toBeGreaterThan(40);
  });

  it('the generated expressions do write and run: the check can fail', () => {
    let changedSome = 0;
    for (let seed = 1; seed <= 300 && changedSome < 5; seed++) {
      const root = tree(files);
      const args = findArgs(seed);
      if (analyzeShell(['find', ...args], { root }).kind === 'analyzed') continue;
      const before = snapshot(root);
      run('find', args, root);
      if (changes(before, snapshot(root)).length > 0) changedSome++;
    }
    expect(changedSome).toBe(5);
  });
});
