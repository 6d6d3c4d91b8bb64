import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * The awk reader (src/policy/shell/awk-program.ts) against the real awks: programs generated
 * from pieces that run a command or write a file, hidden among pieces that only compute, in
 * strings, regular expressions, divisions and comments that a reader could split wrongly. Every
 * program the guard accepts is run by every awk on this machine, in an empty folder: none may
 * leave a file there. Where no awk is installed there is nothing to compare with, and the test
 * says so instead of running.
 */
const AWKS = (() => {
  const found = new Map<string, string>(); // one name for each real program
  for (const name of ['gawk', 'mawk', 'original-awk', 'nawk', 'busybox', 'awk']) {
    const where = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    const path = where.stdout.trim();
    if (where.status !== 0 || !path.startsWith('/')) continue;
    const real = realpathSync(path);
    if (!found.has(real)) found.set(real, name);
  }
  return [...found.values()];
})();
/** busybox runs its awk as `busybox awk`. */
const argvOf = (awk: string, program: string) =>
  awk === 'busybox' ? ['awk', program, 'in.txt'] : [program, 'in.txt'];

/** Pieces that create a file named M… in the folder awk runs in, when they run. */
const DANGERS = [
  'system("touch M1")',
  'system ("touch M2")',
  'print "x" > "M3"',
  'print "x" >> "M4"',
  'printf "x" > "M5"',
  'printf("x") > "M6"',
  'print "x" | "cat > M7"',
  '"touch M8" | getline',
  'while (("touch M9" | getline line) > 0) n++',
  'print "a",\n"b" > "M10"',
  'print 2system("touch M11")',
  'print "a" (1) > "M12"',
  'x = 1 > 0 ? system("touch M13") : 0',
  'print "x" > ("M" 14)',
];

/** Pieces that only compute or print to standard output. */
const HARMLESS = [
  'print',
  'print $1',
  'print $1, $2',
  'print ($1 > 1)',
  'n++',
  'x = 4 / 2',
  's = s $0',
  'if (/a/) print "y"',
  'a[$1]++',
  'printf "%s\\n", $0',
  'sub(/a/, "b")',
  'x = length($0) / 2',
  'print x (NR)',
  'y = 1 / 2 / 1',
  'print "a|b>c; system(1)"',
  'x = "\\"; system(\\"touch M0\\"); y = \\""',
  'if ($0 ~ /[|>]/) print "pipe"',
  'z = NR % 2 == 0 ? "even" : "odd"',
  'for (k in a) print k, a[k]',
  'print toupper(substr($0, 1, 2))',
];

/** Ways of placing a piece that a reader could misjudge: it must still see the piece. */
const HIDINGS = [
  (d: string) => d,
  (d: string) => `a = b /2; ${d}; c = e/ 1`,
  (d: string) => `a = (b) /2; ${d}; c = e/ 1`,
  (d: string) => `a = b[1] /2; ${d}; c = e/ 1`,
  (d: string) => `a = b++ /2; ${d}; c = e/ 1`,
  (d: string) => `a = 1 /2; ${d}; c = 3/ 1`,
  (d: string) => `a = "s" /2; ${d}; c = 3/ 1`,
  (d: string) => `a = $1 /2; ${d}; c = $2/ 1`,
  (d: string) => `a = NR/2/1; ${d}`,
  (d: string) => `x = "#"; ${d}`,
  (d: string) => `x = 1 # a comment\n${d}`,
  (d: string) => `x = 1 \\\n; ${d}`,
  (d: string) => `if (x) ${d}`,
  (d: string) => `if (x) ; else ${d}`,
  (d: string) => `getline x; ${d}`,
  (d: string) => `x = "a\\"b"; ${d}`,
  (d: string) => `x = /"/; ${d}; y = /"/`,
  (d: string) => `x = /[[:alpha:]]/; ${d}`,
  (d: string) => `x = /\\//; ${d}`,
  (d: string) => `x = /[]]/; ${d}`,
];
const SEPARATORS = ['; ', '\n', ' ;\n '];
const FRAMES = [
  (body: string) => `BEGIN { ${body} }`,
  (body: string) => `{ ${body} }`,
  (body: string) => `END { ${body} }`,
  (body: string) => `NR == 1 { ${body} }`,
  (body: string) => `/a/ { ${body} }`,
  (body: string) => `function f(v) { ${body}; return v }\n{ f($1) }`,
];

/** A small seeded generator, so a failure names a program that can be run again. */
function random(seed: number) {
  let state = seed;
  return <T>(items: readonly T[]): T => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return items[((t ^ (t >>> 14)) >>> 0) % items.length] as T;
  };
}

function programs(count: number): string[] {
  const pick = random(21);
  const found: string[] = [];
  for (let i = 0; i < count; i++) {
    const pieces: string[] = [];
    const length = 1 + (i % 3);
    for (let j = 0; j < length; j++) {
      const piece = pick([0, 1, 2]) === 0 ? pick(DANGERS) : pick(HARMLESS);
      pieces.push(pick(HIDINGS)(piece));
    }
    found.push(pick(FRAMES)(pieces.join(pick(SEPARATORS))));
  }
  return found;
}

const accepts = (root: string, program: string) =>
  analyzeShell(['awk', program, 'in.txt'], { root }).kind === 'analyzed';

function run(awk: string, program: string, folder: string): string[] {
  spawnSync(awk, argvOf(awk, program), { cwd: folder, input: 'a b\nc d\n', timeout: 5000 });
  return readdirSync(folder).filter((name) => name !== 'in.txt');
}

describe.skipIf(AWKS.length === 0)(`awk reader against ${AWKS.join(', ') || 'no awk'}`, () => {
  it('each danger, run alone, leaves a file; the reader refuses it', () => {
    const root = tree({ 'in.txt': 'a b\n' });
    for (const danger of DANGERS) {
      const program = `BEGIN { ${danger} }`;
      expect(accepts(root, program), program).toBe(false);
    }
    // The check below can see what a program does: `system` and `>` leave their files.
    for (const awk of AWKS) {
      const folder = tree({ 'in.txt': 'a b\n' });
      expect(run(awk, 'BEGIN { system("touch M1"); print "x" > "M2" }', folder)).toEqual([
        'M1',
        'M2',
      ]);
    }
  });

  it('no program the reader accepts leaves a file, in any awk', () => {
    const root = tree({ 'in.txt': 'a b\n' });
    const generated = programs(300);
    const accepted = generated.filter((program) => accepts(root, program));
    // Enough pass to mean something, and the dangers are refused.
    expect(accepted.length).toBeGreaterThan(60);
    expect(accepted.length).toBeLessThan(generated.length);
    for (const awk of AWKS) {
      const folder = join(tree({ 'in.txt': 'a b\nc d\n' }));
      for (const program of accepted) {
        expect(run(awk, program, folder), `${awk} '${program}'`).toEqual([]);
      }
    }
  });

  it('the harmless pieces pass the reader', () => {
    const root = tree({ 'in.txt': '' });
    for (const piece of HARMLESS) {
      for (const frame of FRAMES) expect(accepts(root, frame(piece)), frame(piece)).toBe(true);
    }
  });
});

describe.skipIf(AWKS.length > 0)('awk reader against the real awks', () => {
  it.skip('no awk on this machine (gawk, mawk, busybox…): install one to compare', () => {});
});
