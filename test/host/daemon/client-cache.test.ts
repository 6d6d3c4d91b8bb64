import { appendFileSync, cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, preToolUse, root, runProcess, WORKFLOW_GUARD } from '../../support/run-bin.js';
import { socketFolder, startDaemon, stopDaemons } from './daemon-support.js';

/**
 * The hook client compiled from V8's code cache of it (bin/hermes.js `cachedClient`,
 * loader/code-cache.cjs, docs/command-hooks.md "Code caches"): made beside the client by the call
 * that had none, used by the next, made again when it is of another client file or V8 refuses it,
 * and never read or made under V8 flags. Each test runs a copy of the client (its own `bin/`,
 * `package.json`, `dist/hook-client.cjs` and `loader/code-cache.cjs`, nothing else), so a call the daemon did not answer
 * would fail (the copy has no framework to answer in-process): every answer below is the daemon's.
 */
let home: string;
let project: string;
let daemonEnv: Record<string, string | undefined>;

beforeAll(() => {
  expect(built).toBe(true);
});

afterEach(stopDaemons);

async function setup() {
  home = tree({ 'config.yaml': WORKFLOW_GUARD });
  project = tree({ '.git/HEAD': '' });
  daemonEnv = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON: undefined,
    HERMES_DAEMON_DIR: socketFolder(),
    NODE_OPTIONS: undefined,
  };
  await startDaemon(daemonEnv);
  const copy = tree({});
  cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(root, 'loader', 'code-cache.cjs'), join(copy, 'loader', 'code-cache.cjs'));
  cpSync(join(root, 'package.json'), join(copy, 'package.json'));
  cpSync(join(root, 'dist', 'hook-client.cjs'), join(copy, 'dist', 'hook-client.cjs'));
  const client = join(copy, 'dist', 'hook-client.cjs');
  const cache = join(copy, 'dist', `hook-client.${process.version}-${process.arch}.v8cache`);
  /** An edit before any plan, which workflow-guard refuses: one answer, whoever gives it. */
  const edit = (nodeFlags: string[] = []) =>
    runProcess(
      process.execPath,
      [...nodeFlags, join(copy, 'bin', 'hermes.js'), 'hook', 'claude-code'],
      {
        env: daemonEnv,
        cwd: project,
        stdin: JSON.stringify(
          preToolUse(
            's1',
            project,
            'Edit',
            { file_path: join(project, 'src/a.ts'), old_string: 'a', new_string: 'b' },
            'toolu_1',
          ),
        ),
      },
    );
  /** What the cache's first line must say: the client file it was made from. */
  const madeFrom = () => {
    const stats = statSync(client);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  };
  const header = () => readFileSync(cache, 'latin1').split('\n', 1)[0];
  return { client, cache, edit, madeFrom, header };
}

const refused = (answer: { code: number; stdout: string; stderr: string }) => {
  expect(answer.stderr).not.toContain('not built');
  expect(answer.code).toBe(0);
  expect(JSON.parse(answer.stdout)).toMatchObject({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
  });
};

describe.runIf(built)("the hook client's code cache", () => {
  it('is made by the first call, and the next call is compiled from it (not made again)', async () => {
    const s = await setup();
    expect(existsSync(s.cache)).toBe(false);
    refused(await s.edit());
    expect(s.header()).toBe(s.madeFrom());
    const made = statSync(s.cache);
    const second = await s.edit();
    refused(second);
    // Made again only when V8 refuses it or it is of another file: untouched, it was used.
    expect(statSync(s.cache).ino).toBe(made.ino);
    expect(statSync(s.cache).mtimeMs).toBe(made.mtimeMs);
  });

  it('is made again for a client file that changed (another build), which answers as itself', async () => {
    const s = await setup();
    refused(await s.edit());
    const before = s.header();
    appendFileSync(s.client, '\n// another build\n');
    refused(await s.edit());
    expect(s.header()).toBe(s.madeFrom());
    expect(s.header()).not.toBe(before);
  });

  it('is made again when V8 refuses it (bytes that are no cache, under the right first line)', async () => {
    const s = await setup();
    const junk = `${s.madeFrom()}\nnot a code cache at all`;
    writeFileSync(s.cache, junk);
    refused(await s.edit());
    const remade = readFileSync(s.cache, 'latin1');
    expect(remade).not.toBe(junk);
    expect(s.header()).toBe(s.madeFrom());
  });

  it('is neither read nor made under flags given to Node (the cache was not made with them)', async () => {
    const s = await setup();
    refused(await s.edit(['--stack-size=900']));
    expect(existsSync(s.cache)).toBe(false);
  });
});
