import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { changes, random, run, snapshot } from './differential.js';

/**
 * The builtins' grammars and the arithmetic rules (src/policy/shell/builtins.ts, arithmetic.ts,
 * expansions.ts, test-expression.ts, posix.ts) against bash and dash: lines of `test`, `[`,
 * `[[`, `printf`, `echo`, `:`, `let`, `declare`, `export` and expansions, with words that carry
 * an array subscript running `touch` (quoted, from a variable, from a file, from a glob: the
 * folder holds files named `-v` and `a[$(touch …)]`), each judged by the analysis; every line
 * called read-only is run by bash (and, as `sh -c`, by dash), which must change nothing.
 *
 * The variable V holds such a subscript: the analysis may read it only as data. A plain name in
 * arithmetic is evaluated with its value read as arithmetic too, which is why no name the lines
 * use as a plain name holds one (the analysis lets no command assign one).
 */

const SUBSCRIPT = 'a[$(touch ran-%.txt)]';
const FILES = {
  '-v': '',
  [SUBSCRIPT.replace('%', 'glob')]: '',
  'plans/v': `${SUBSCRIPT.replace('%', 'file')}\n`,
  'plans/n': '1\n',
};

const WORDS = [
  '-v',
  '-R',
  '-eq',
  '-lt',
  '-n',
  '-f',
  '=',
  '!',
  '-a',
  '-o',
  '(',
  ')',
  'HOME',
  'n',
  '1',
  `'${SUBSCRIPT.replace('%', 'quoted')}'`,
  `"${SUBSCRIPT.replace('%', 'dquoted').replace('$', '\\$')}"`,
  "'a[1]'",
  '"$V"',
  '$V',
  '"$(cat plans/v)"',
  '$(cat plans/v)',
  '*',
  '"$@"',
  '$((n))',
  '$((n+1))',
  '$(( $(cat plans/v) ))',
  '$[ $(cat plans/v) ]',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${x:1}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${V:$(cat plans/v)}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${a[$V]}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${a["$V"]}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${!V}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  '${a[n]}',
];

function line(seed: number): string {
  const r = random(seed);
  const words = (count: number) => Array.from({ length: count }, () => r.pick(WORDS)).join(' ');
  const form = r.int(10);
  switch (form) {
    case 0:
      return `test ${words(1 + r.int(4))}`;
    case 1:
      return `[ ${words(1 + r.int(4))} ]`;
    case 2:
      return `[[ ${r.pick(WORDS)} ${r.pick(['-eq', '-lt', '==', '-ge'])} ${r.pick(WORDS)} ]]`;
    case 3:
      return `[[ ${r.pick(['-v', '-R', '-n', '-f'])} ${r.pick(WORDS)} ]]`;
    case 4:
      return `printf ${words(1 + r.int(3))}`;
    case 5:
      return `echo ${words(1 + r.int(3))}`;
    case 6:
      return `: ${words(1 + r.int(2))}`;
    case 7:
      return `let ${words(1)}`;
    case 8:
      return `declare -p ${words(1)}`;
    default:
      return `export ${r.pick(['-p', words(1)])}`;
  }
}

describe('builtins and arithmetic against bash and dash', () => {
  it('a line it calls read-only runs nothing', () => {
    const root = tree(FILES);
    const env = { ...process.env, V: SUBSCRIPT.replace('%', 'env') };
    const wrong: string[] = [];
    let passed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const text = line(seed);
      for (const shell of ['bash', 'sh'] as const) {
        const argv = [shell, '-c', text];
        if (analyzeShell(argv, { root }).kind !== 'analyzed') continue;
        passed++;
        const before = snapshot(root);
        run(shell, ['-c', text], root, 1000, env);
        const changed = changes(before, snapshot(root));
        if (changed.length > 0) wrong.push(`${shell} -c ${JSON.stringify(text)}: ${changed}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(passed).toBeGreaterThan(80);
  });

  it('the generated lines do run code: the check can fail', () => {
    const root = tree(FILES);
    const env = { ...process.env, V: SUBSCRIPT.replace('%', 'env') };
    let ranSome = 0;
    for (let seed = 1; seed <= 300 && ranSome < 5; seed++) {
      const text = line(seed);
      if (analyzeShell(['bash', '-c', text], { root }).kind === 'analyzed') continue;
      const before = snapshot(root);
      run('bash', ['-c', text], root, 1000, env);
      if (changes(before, snapshot(root)).length > 0) ranSome++;
    }
    expect(ranSome).toBe(5);
  });
});
