// Cold-start benchmark: how long a fresh process takes to load 1, 10 and 50 extensions. Each
// figure comes from its own `node bench/coldstart-child.mjs` process, started with
// process.execPath; the configurations are run round-robin, BENCH_COLDSTART_RUNS times each
// (default 7), after one unmeasured round that warms the disk and fills the warm jiti caches:
//   - native N:  `await import(url)` of N `.mjs` extensions, one after the other, with
//                hermes-extensions and zod installed next to them (symlinks in node_modules);
//   - mjs N:     loadRuntime over the same `.mjs` extensions in $HERMES_HOME/extensions/, where
//                nothing is installed (the loader provides the framework and zod);
//   - ts-warm N: loadRuntime over the same extensions in TypeScript, jiti's disk cache filled by
//                an earlier process;
//   - ts-cold N: the same from a second $HERMES_HOME whose jiti cache is emptied before every run;
//   - empty:     a node process that imports nothing, for the whole-process wall time.
// The loader keeps jiti's disk cache in `$HERMES_HOME/cache/jiti`, so each configuration's home
// holds its own cache. Run by bench/run.mjs, which prints the tables; the samples (ms) go to
// stdout as one JSON line.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const child = join(root, 'bench', 'coldstart-child.mjs');
const SIZES = [1, 10, 50];
const RUNS = Math.max(1, Number(process.env.BENCH_COLDSTART_RUNS ?? 7));

// --- the extensions --------------------------------------------------------------------------

const pad = (i) => String(i).padStart(2, '0');
const protectedDirs = ['secrets', 'vendor', 'dist', 'migrations', '.github'];

/** A small guard as people write them: a type import, an interface, an enum, `satisfies`. */
const typescript = (
  i,
) => `import type { InterceptToolCallEvent, HookResultMap } from 'hermes-extensions';
import { block, defineExtension } from 'hermes-extensions';
import { z } from 'zod';

enum Verdict {
  Allow = 'allow',
  Deny = 'deny',
}

interface GuardRule {
  pattern: RegExp;
  verdict: Verdict;
  reason: string;
}

const rules = [
  { pattern: /^${protectedDirs[i % protectedDirs.length]}\\//, verdict: Verdict.Deny, reason: 'is read-only' },
  { pattern: /^secrets\\//, verdict: Verdict.Deny, reason: 'holds credentials' },
  { pattern: /\\.lock$/, verdict: Verdict.Deny, reason: 'is generated' },
  { pattern: /^src\\/generated-${i}\\//, verdict: Verdict.Allow, reason: 'is ours' },
] satisfies GuardRule[];

const configSchema = z.object({
  enabled: z.boolean().default(true),
  extraPaths: z.array(z.string()).default([]),
});

function judge(path: string): GuardRule | undefined {
  return rules.find((rule) => rule.pattern.test(path));
}

export default defineExtension({
  name: 'guard-${pad(i)}',
  description: 'Keeps writes out of protected paths (${i})',
  configSchema,
  setup(hermes) {
    if (!hermes.config.enabled) return;
    const extra: string[] = hermes.config.extraPaths;
    hermes.on(
      'intercept_tool_call',
      (event: InterceptToolCallEvent): HookResultMap['intercept_tool_call'] | undefined => {
        const path = String(event.toolArgs.path ?? '');
        if (extra.some((prefix) => path.startsWith(prefix))) {
          return block(\`guard-${pad(i)}: \${path} is protected by config\`);
        }
        const rule = judge(path);
        if (rule?.verdict !== Verdict.Deny) return undefined;
        return block(\`guard-${pad(i)}: \${path} \${rule.reason}\`);
      },
      { tools: ['write', 'edit'] },
    );
  },
});
`;

/** The same extension with the types removed (the enum becomes a frozen object). */
const javascript = (i) =>
  typescript(i)
    .replace(/^import type .*\n/m, '')
    .replace(
      "enum Verdict {\n  Allow = 'allow',\n  Deny = 'deny',\n}",
      "const Verdict = Object.freeze({ Allow: 'allow', Deny: 'deny' });",
    )
    .replace(/interface GuardRule \{[^}]*\}\n\n/, '')
    .replace(' satisfies GuardRule[]', '')
    .replace('(path: string): GuardRule | undefined', '(path)')
    .replace('const extra: string[]', 'const extra')
    .replace(
      "(event: InterceptToolCallEvent): HookResultMap['intercept_tool_call'] | undefined =>",
      '(event) =>',
    );

const work = mkdtempSync(join(tmpdir(), 'hermes-coldstart-'));
const project = join(work, 'project');
const tsHome = (n) => join(work, 'ts', `n${n}`);
const tsColdHome = (n) => join(work, 'ts-cold', `n${n}`);
const mjsHome = (n) => join(work, 'mjs', `n${n}`);
const nativeDir = (n) => join(work, 'native', `n${n}`);

function writeExtensions() {
  mkdirSync(join(project, '.git'), { recursive: true }); // the project root: an empty clone
  for (const n of SIZES) {
    for (let i = 1; i <= n; i++) {
      const files = [
        [join(tsHome(n), 'extensions', `ext-${pad(i)}`), 'index.ts', typescript(i)],
        [join(tsColdHome(n), 'extensions', `ext-${pad(i)}`), 'index.ts', typescript(i)],
        [join(mjsHome(n), 'extensions', `ext-${pad(i)}`), 'index.mjs', javascript(i)],
        [join(nativeDir(n), `ext-${pad(i)}`), 'index.mjs', javascript(i)],
      ];
      for (const [dir, name, source] of files) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, name), source);
      }
    }
  }
  // Installed for the bare import() only: $HERMES_HOME has no node_modules, as in real use.
  const modules = join(work, 'native', 'node_modules');
  mkdirSync(modules, { recursive: true });
  symlinkSync(root, join(modules, 'hermes-extensions'), 'dir');
  symlinkSync(realpathSync(join(root, 'node_modules', 'zod')), join(modules, 'zod'), 'dir');
}

// --- the runs --------------------------------------------------------------------------------

const configs = [{ name: 'empty', args: ['empty'], n: 0 }];
for (const n of SIZES) {
  const runtime = (home) => ['runtime', home, project, String(n)];
  configs.push(
    { name: `native ${n}`, args: ['native', nativeDir(n), String(n)], n },
    { name: `mjs ${n}`, args: runtime(mjsHome(n)), n },
    { name: `ts-warm ${n}`, args: runtime(tsHome(n)), n, cache: join(tsHome(n), 'cache') },
    {
      name: `ts-cold ${n}`,
      args: runtime(tsColdHome(n)),
      n,
      cache: join(tsColdHome(n), 'cache'),
      cold: true,
    },
  );
}

const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(JITI_|HERMES_)/.test(key)),
);
const cacheFiles = (dir) => {
  const jiti = join(dir, 'jiti');
  return existsSync(jiti) ? readdirSync(jiti).length : 0;
};

function runOnce(config) {
  if (config.cold) rmSync(config.cache, { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [child, ...config.args], {
      cwd: root,
      env: baseEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${config.name} exited with code ${code}`));
      // The cache really is where the loader says: a cold run fills the emptied folder.
      if (config.cold && cacheFiles(config.cache) < config.n) {
        return reject(new Error(`${config.name}: jiti did not write its cache under $HERMES_HOME`));
      }
      resolve({ ...JSON.parse(out.trim().split('\n').at(-1)), wallMs });
    });
  });
}

const samples = Object.fromEntries(configs.map((c) => [c.name, []]));
try {
  writeExtensions();
  console.error(`cold start: ${configs.length} configurations, 1 + ${RUNS} rounds…`);
  for (const config of configs) await runOnce(config); // unmeasured: disk and warm caches
  for (const config of configs) {
    if (config.cache && !config.cold && cacheFiles(config.cache) < config.n) {
      throw new Error(`${config.name}: the warm cache was not filled`);
    }
  }
  const primed = Date.now();
  for (let r = 0; r < RUNS; r++) {
    for (const config of configs) samples[config.name].push(await runOnce(config));
  }
  // Warm runs only read the cache: jiti rewrites an entry only when it misses.
  for (const { name, cache } of configs.filter((c) => c.cache && !c.cold)) {
    const dir = join(cache, 'jiti');
    if (readdirSync(dir).some((file) => statSync(join(dir, file)).mtimeMs >= primed)) {
      throw new Error(`${name}: the warm cache was written to during the measured runs`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(`${JSON.stringify({ sizes: SIZES, runs: RUNS, samples })}\n`);
