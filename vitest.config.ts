import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * AI SDK 7 as `npm run setup:ai7` installs it (test/ai-sdk-v7/): not a devDependency, since it asks
 * for Node >= 22 and `npm install` would warn on Node 20. Its entry points, read from its manifest.
 */
const aiSdk7 = fileURLToPath(new URL('./test/ai-sdk-v7/node_modules/ai/', import.meta.url));
const aiSdk7Installed = existsSync(join(aiSdk7, 'package.json'));
function aiSdk7Entry(subpath: '.' | './test'): string {
  const fallback = subpath === '.' ? 'dist/index.js' : 'dist/test/index.js';
  if (!aiSdk7Installed) return join(aiSdk7, fallback);
  const manifest = JSON.parse(readFileSync(join(aiSdk7, 'package.json'), 'utf8'));
  return join(aiSdk7, manifest.exports?.[subpath]?.import ?? fallback);
}

/**
 * The end-to-end tests: the real agents' command lines (test/e2e) and the packed package
 * installed as a user installs it, with npm and pip (test/packaging).
 */
const END_TO_END = ['test/e2e/**/*.test.ts', 'test/packaging/**/*.test.ts'];

/**
 * The tests that run this package's command line, its hooks, its daemon or the OS sandbox as child
 * processes, many per test: each such process loads the framework anew (0.3 to 0.9 CPU-seconds on
 * a 2-core machine), and together they are most of the suite's time. They cover the processes' own
 * contracts (exit codes, output, files written, failure modes) over every row of their tables; the
 * decisions themselves are tested in process as well.
 */
const PROCESS_TABLES = [
  'test/cli/**/*.test.ts',
  'test/host/daemon/**/*.test.ts',
  // All of the command hook's tables but each agent's contract and the in-process tables of
  // subagents, tool names and the final answer, which `npm test` runs.
  'test/host/command-hook/!(claude-code|codex|subagent-turns|subagent-coverage|agent-version-env|codex-tool-names|final-answer).test.ts',
  'extensions/workflow-guard/sandbox*.test.ts',
  'extensions/secrets-guard/sandbox.test.ts',
  'test/demo/**/*.test.ts',
  'test/readme/{quickstart,typecheck,examples-run}.test.ts',
  // The Hermes agent's plugin in its Python stand-in, and the `hermes` command beside the agent's.
  'test/hermes-agent/{plugin,plugin-llm,plugin-tools,plugin-names,command-name}.test.ts',
];

export default defineConfig({
  resolve: {
    // Tests run against the sources, not a build that may be stale.
    alias: [
      { find: /^hermes-extensions\/policy$/, replacement: src('policy/index.ts') },
      { find: /^hermes-extensions\/testing$/, replacement: src('testing/index.ts') },
      { find: /^hermes-extensions\/ai-sdk$/, replacement: src('host/ai-sdk/index.ts') },
      // The shipped extensions' entries (package.json `exports`), as their sources.
      {
        find: /^hermes-extensions\/(audit-log|module-router|otel|secrets-guard|workflow-guard)$/,
        replacement: fileURLToPath(new URL('./extensions/$1/index.ts', import.meta.url)),
      },
      { find: /^hermes-extensions$/, replacement: src('index.ts') },
    ],
  },
  test: {
    // Many tests run the real command line, the bridge or an agent as child processes; on a
    // loaded 2-core machine one such test can take ten times what it takes on an idle one.
    // A limit only has to catch a hang, so it is far from any time a test needs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Nor may a slow load's warning (over 1 s by default) turn a healthy setup into a warning on
    // such a machine; the tests of the warning set their own threshold. Child processes inherit it.
    // And a `hermes hook` run by a test answers in-process, as it did before the hook daemon,
    // instead of starting a daemon per test home; the daemon's tests turn it back on.
    env: { HERMES_SLOW_LOAD_MS: '600000', HERMES_DAEMON: '0' },
    // A worker runs many files in one process and loads the framework once for them: loading it
    // anew per file cost about a second of CPU each. test/support/each-file.ts, run before every
    // file, cleans up what the shared support modules made and puts back what a file changed.
    isolate: false,
    setupFiles: ['test/support/each-file.ts'],
    // Much of a test's time is spent waiting on a child process (the command line, a hook, the
    // daemon, a sandboxed shell) or a timer: more files than cores run at once, where the default
    // is one fewer worker than cores (one, on a 2-core machine). Not many more: each worker's
    // tests then get less of a core, and the longest ones near the limit that only has to catch
    // a hang.
    maxWorkers: Math.max(3, availableParallelism()),
    projects: [
      // `npm test`: every test that runs in the worker's own process, and the hook's contract with
      // each agent as a child process (claude-code.test.ts, codex.test.ts). About 1,900 tests, a
      // minute on an idle 2-core machine.
      {
        extends: true,
        test: {
          name: 'quick',
          include: ['test/**/*.test.ts', 'extensions/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...END_TO_END, ...PROCESS_TABLES],
        },
      },
      // `npm run test:processes`: the tables that run the command line, a hook, the daemon, the OS
      // sandbox, npm or tsc as child processes, several per test: about 460 tests, and about five
      // sixths of the suite's CPU (CONTRIBUTING.md, Running tests).
      {
        extends: true,
        test: { name: 'processes', include: PROCESS_TABLES },
      },
      // `npm run test:e2e`: a minute or more each.
      {
        extends: true,
        test: { name: 'e2e', include: END_TO_END },
      },
      // The AI SDK adapter again, against AI SDK 7: the SDK's loop, its middleware and its mock
      // models are v7's; the adapter is the same code. Where it is not installed the project is
      // left out (test/host/ai-sdk.test.ts says so), except in CI, where the missing SDK fails.
      ...(aiSdk7Installed || process.env.CI
        ? [
            {
              extends: true as const,
              resolve: {
                alias: [
                  { find: /^ai\/test$/, replacement: aiSdk7Entry('./test') },
                  { find: /^ai$/, replacement: aiSdk7Entry('.') },
                ],
              },
              test: {
                name: 'ai-sdk-v7',
                include: ['test/host/ai-sdk*.test.ts'],
                env: { AI_SDK_MAJOR: '7' },
              },
            },
          ]
        : []),
    ],
  },
});
