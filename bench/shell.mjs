// The cost of judging one shell command (analyzeShell: parse with unbash, walk, allowlist) and
// of module-router's parse, per command, on a small real project tree; and the one-time cost of
// loading the parser. Prints one JSON line: { medians: { name: ns }, parserLoadMs }.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const loadStart = performance.now();
await import('unbash');
const parserLoadMs = performance.now() - loadStart;
const { analyzeShell, parseShell } = await import('../dist/index.js');

const root = mkdtempSync(join(tmpdir(), 'hermes-bench-shell-'));
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(root, 'plans'), { recursive: true });
writeFileSync(join(root, 'src/app.ts'), 'x\n');

const COMMANDS = {
  'git status': 'git status',
  'a pipeline (cat | grep | head)': 'cat src/app.ts | grep -n app | head -5',
  'cd, sed -n, redirect into plans/': "cd plans && sed -n '1,20p' ../src/app.ts > notes.md",
  'a here-document with a substitution': 'cat > plans/plan.md <<EOF\n# Plan $(date +%F)\nEOF',
  'refused: an interpreter': 'python3 -c "print(1)"',
  'a 20-command script': Array.from({ length: 20 }, (_, i) => `grep -n x${i} src/app.ts`).join(
    ' && ',
  ),
};

const ROUNDS = 5;
const N = 2000;
const medians = {};
for (const [name, line] of Object.entries(COMMANDS)) {
  for (const [what, run] of [
    ['analyzeShell', () => analyzeShell(line, { root })],
    ['parseShell', () => parseShell(line, root)],
  ]) {
    for (let i = 0; i < 200; i++) run();
    const samples = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now();
      for (let i = 0; i < N; i++) run();
      samples.push(((performance.now() - start) / N) * 1e6);
    }
    samples.sort((a, b) => a - b);
    medians[`${what}: ${name}`] = samples[ROUNDS >> 1];
  }
}
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify({ medians, parserLoadMs }));
