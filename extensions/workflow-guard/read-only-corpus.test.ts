import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import {
  groundSandboxedCallOf,
  protectedGround,
  sandboxedShellCallOf,
} from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  corpusProject,
  EXPECTED_REFUSALS,
  READ_ONLY_CORPUS,
} from '../../test/policy/read-only-corpus.js';
import { tree } from '../../test/support/fixtures.js';
import { sandbox } from '../../test/support/sandbox.js';
import workflowGuard from './index.js';

type Decided = {
  blocked: boolean;
  changed: boolean;
  message?: string;
  value: Record<string, unknown>;
};

async function guardedTurn<T>(
  root: string,
  run: (call: (command: string) => Promise<Decided>) => Promise<T>,
  sandbox: 'off' | 'auto' = 'off',
) {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    // The analysis as a host without the sandbox meets it (`off`); with the sandbox on, what it
    // cannot show to only read runs in the sandbox instead.
    config: { extensions: { 'workflow-guard': { sandbox } } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    run(async (command) => turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } })),
  );
}

/**
 * Readers that take settings from files an agent may write once a plan exists (`.git/config`,
 * `.npmrc`): the framework's protected-ground rule runs them in its own sandbox, with or without a
 * plan (docs/trust.md, Protected ground).
 */
const RUN_BY_SETTINGS = /(?:^|[;|&(]\s*)(?:git|npm|npx|node|python3?)(?=\s|$)/;

/**
 * The user's folders, `$HERMES_HOME`, the daemon's folder and the temporary folder (the daemon's
 * default is in it) in a folder of the test's own, set before the runtime is made and put back
 * after each test. The protected-ground sandbox line is made from the disk as it is
 * (ground-mounts.ts), and the test makes it again to recognise it: a place another test made or
 * removed in between, in a home or temporary folder they share, would make the two lines differ.
 * The home the system records (`os.userInfo().homedir`) stays protected ground and cannot be
 * moved; tests put only sandboxes' mount points there, which count as no place (ground-mounts.ts).
 */
beforeEach(() => {
  const home = tree();
  for (const folder of ['.hermes', 'tmp']) mkdirSync(join(home, folder));
  vi.stubEnv('HOME', home);
  vi.stubEnv('HERMES_HOME', join(home, '.hermes'));
  vi.stubEnv('HERMES_DAEMON_DIR', join(home, 'daemons'));
  vi.stubEnv('TMPDIR', join(home, 'tmp'));
  for (const name of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_CONFIG_HOME']) {
    vi.stubEnv(name, undefined);
  }
});
// Before removeTrees (each-file.ts) removes the folders they name.
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('workflow-guard without a plan: ordinary reading', () => {
  it('lets the read-only corpus through, but for the refusals it lists', async () => {
    const root = corpusProject();
    const blocked = await guardedTurn(root, async (call) => {
      const found: Array<[string, string]> = [];
      for (const command of READ_ONLY_CORPUS) {
        const outcome = await call(command);
        if (outcome.blocked) found.push([command, outcome.message ?? '']);
      }
      return found;
    });
    expect(blocked.map(([command]) => command)).toEqual(Object.keys(EXPECTED_REFUSALS));
    for (const [command, message] of blocked) {
      expect(message).toMatch(EXPECTED_REFUSALS[command] as RegExp);
    }
  });

  it.runIf(sandbox.available)(
    'with the sandbox, refuses none of it: what the analysis cannot show to only read runs sandboxed',
    async () => {
      const root = corpusProject();
      const decided = await guardedTurn(
        root,
        async (call) => {
          const found: Record<string, string> = {};
          for (const command of READ_ONLY_CORPUS) {
            const outcome = await call(command);
            found[command] = outcome.blocked
              ? `blocked: ${outcome.message}`
              : outcome.changed
                ? sandboxedShellCallOf(outcome.value, {
                    root,
                    writable: ['plans/', 'handoff/'],
                  }) === command
                  ? 'sandboxed'
                  : groundSandboxedCallOf(outcome.value, protectedGround(root))?.command === command
                    ? 'in the protected-ground sandbox'
                    : 'rewritten otherwise'
                : 'passed';
          }
          return found;
        },
        'auto',
      );
      const expected = Object.fromEntries(
        READ_ONLY_CORPUS.map((command) => [
          command,
          command in EXPECTED_REFUSALS
            ? 'sandboxed'
            : RUN_BY_SETTINGS.test(command)
              ? 'in the protected-ground sandbox'
              : 'passed',
        ]),
      );
      expect(decided).toEqual(expected);
    },
  );

  /** Each reader the corpus needed, used to write or run something: all blocked. */
  const ABUSES: Array<[string, RegExp]> = [
    ['npm ls --json > src/x', /would write src\/x/],
    ['npm view x version > package.json', /would write package.json/],
    ["awk '{print}' src/app.ts > src/app.ts", /would write src\/app.ts/],
    ['awk \'{print > "src/x"}\' package.json', /writes a file/],
    ['awk \'BEGIN{system("touch src/x")}\'', /runs a command/],
    ['find . -exec rm {} +', /`rm` is not a program known to only read/],
    ["find src -name '*.ts' -exec sed -i s/a/b/ {} +", /`-i` is not an option of sed/],
    ['find src -exec tee {} \\;', /only known when the command runs/],
    ['for f in x; do rm "$f"; done', /`rm`/],
    ['for f in src/*.ts; do cat "$f" > "$f.bak"; done', /redirection target/],
    ['while read f; do echo x > "$f"; done < plans/list', /redirection target/],
    ['git ls-files | while read f; do echo x >> src/log; done', /would write src\/log/],
    ["node --version; node -e \"require('fs').rmSync('src')\"", /`node` runs code/],
    ['python3 --version && python3 -c "import os"', /`python3` runs code/],
    ['npm -v && npm install', /`npm install` is not known to only read/],
    ["for x in 'a[$(touch src/y)]'; do echo $((x)); done", /evaluates `x` as code/],
    ['ls plans | while read f; do [[ f -gt 0 ]]; done', /evaluates `f` as code/],
  ];

  it.each(ABUSES)('blocks %s', async (command, reason) => {
    const root = corpusProject();
    const outcome = await guardedTurn(root, (call) => call(command));
    expect(outcome).toMatchObject({ blocked: true, message: expect.stringMatching(reason) });
  });
});
