import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { protectedGround } from '../../src/policy/protected/ground.js';
import { groundMounts } from '../../src/policy/sandbox/ground-mounts.js';
import { tree, tsExtension } from '../support/fixtures.js';

/**
 * What answers the hooks is protected ground (docs/trust.md): the hermes-extensions package the
 * hook runs and the Node.js program it runs with. A user-wide install often puts both in the
 * user's home (nvm, a user npm prefix), where the agent may write: an `exit 0` at the top of the
 * hook's client, or a `node` that prints nothing, would answer "allow" to every call of every
 * project.
 */
let root: string;
let hermesHome: string;

beforeEach(() => {
  const user = tree({ '.keep': '' });
  hermesHome = join(user, 'hermes-home');
  mkdirSync(hermesHome);
  process.env.HOME = user;
  process.env.HERMES_HOME = hermesHome;
  root = tree({ '.git/HEAD': '', 'src/a.ts': 'export const a = 1;\n' });
});

async function decide(toolName: string, toolArgs: Record<string, unknown>) {
  const runtime = await createRuntime({ extensions: [], cwd: root, logger: memoryLogger() });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

const client = join(PACKAGE_ROOT, 'dist', 'hook-client.cjs');
const clientCache = join(
  PACKAGE_ROOT,
  'dist',
  `hook-client.${process.version}-${process.arch}.v8cache`,
);

describe('protected ground: what answers the hooks', () => {
  it.each([
    ['Write', { file_path: client, content: 'process.exit(0)\n' }, 'hermes-extensions package'],
    [
      'Edit',
      { file_path: join(PACKAGE_ROOT, 'bin', 'hermes.js'), old_string: 'a', new_string: 'b' },
      'hermes-extensions package',
    ],
    ['Bash', { command: `echo 'process.exit(0)' > ${client}` }, 'hermes-extensions package'],
    [
      'Bash',
      { command: `rm -rf ${join(PACKAGE_ROOT, 'extensions')}` },
      'hermes-extensions package',
    ],
    // The client's code cache (bin/hermes.js): compiled code the next hook runs.
    ['Write', { file_path: clientCache, content: 'x' }, 'hermes-extensions package'],
    // The daemon's runtime threads: their entry, their bundle and its code cache.
    [
      'Bash',
      { command: `echo 'process.exit(0)' > ${join(PACKAGE_ROOT, 'loader', 'daemon-worker.cjs')}` },
      'hermes-extensions package',
    ],
    [
      'Write',
      {
        file_path: join(
          PACKAGE_ROOT,
          'dist',
          `daemon-worker.${process.version}-${process.arch}.v8cache`,
        ),
        content: 'x',
      },
      'hermes-extensions package',
    ],
    // The command line's bundle, which a hook call the daemon does not answer runs, and its cache.
    [
      'Bash',
      { command: `cp /dev/null ${join(PACKAGE_ROOT, 'dist', 'cli.bundle.cjs')}` },
      'hermes-extensions package',
    ],
    [
      'Write',
      {
        file_path: join(PACKAGE_ROOT, 'dist', `cli.${process.version}-${process.arch}.v8cache`),
        content: 'x',
      },
      'hermes-extensions package',
    ],
    ['Write', { file_path: process.execPath, content: '#!/bin/sh\nexit 0\n' }, 'Node.js program'],
  ] as const)('refuses %s %j', async (tool, args, what) => {
    const outcome = await decide(tool, args as Record<string, unknown>);
    expect(outcome.blocked).toBe(true);
    if (!outcome.blocked) return;
    expect(outcome.blockedBy).toBe('hermes');
    expect(outcome.message).toContain(what);
  });

  it('lets the project’s own files through', async () => {
    const outcome = await decide('Write', { file_path: join(root, 'src/a.ts'), content: '' });
    expect(outcome.blocked).toBe(false);
  });

  it('is held read-only in the protected-ground sandbox, where it really is', () => {
    const readOnly = groundMounts(protectedGround(root)).readOnly;
    const covers = (path: string) =>
      readOnly.some((place) => path === place || path.startsWith(`${place}/`));
    expect(covers(realpathSync(client))).toBe(true);
    expect(covers(realpathSync(process.execPath))).toBe(true);
  });

  it('stays protected when the project links to it', () => {
    symlinkSync(PACKAGE_ROOT, join(root, 'vendor'));
    const places = protectedGround(root).places.map((place) => place.path);
    expect(places).toContain(PACKAGE_ROOT);
  });

  // A copy in the project's node_modules (the project form's) is the project's code, which trust
  // covers: the project's `npm install` must still be able to update it.
  it('leaves out a copy inside the project', () => {
    const whats = protectedGround(PACKAGE_ROOT).places.map((place) => place.what);
    expect(whats).not.toContain('the hermes-extensions package that answers your hooks');
  });
});

/**
 * The user's own guards, where the user's config names them outside `$HERMES_HOME` (`paths`,
 * `global_dir`): the runtime loads them from the disk, so an edit is the guard from the next
 * call on, in every project.
 */
describe("protected ground: the user's own extensions the user's config names", () => {
  async function decideLoaded(toolName: string, toolArgs: Record<string, unknown>) {
    const runtime = await loadRuntime({ cwd: root, logger: memoryLogger() });
    try {
      return await runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName, toolArgs }),
      );
    } finally {
      await runtime.close();
    }
  }

  function configure(guards: string, extra = '') {
    writeFileSync(
      join(hermesHome, 'config.yaml'),
      `extensions:\n  paths: [${JSON.stringify(join(guards, 'my-guard'))}, ${JSON.stringify(join(guards, 'loose.ts'))}]\n${extra}`,
    );
  }

  it('refuses a write to one that `paths` names, and to the folder `global_dir` names', async () => {
    const guards = tree({
      'my-guard/index.ts': tsExtension('my-guard'),
      'loose.ts': tsExtension('loose'),
      'global/other.ts': tsExtension('other'),
    });
    configure(guards, `  global_dir: ${JSON.stringify(join(guards, 'global'))}\n`);
    for (const [tool, args] of [
      ['Write', { file_path: join(guards, 'my-guard/index.ts'), content: '' }],
      ['Bash', { command: `rm -rf ${join(guards, 'my-guard')}` }],
      ['Write', { file_path: join(guards, 'loose.ts'), content: '' }],
      ['Write', { file_path: join(guards, 'global/new.ts'), content: '' }],
    ] as const) {
      const outcome = await decideLoaded(tool, args);
      expect(outcome.blocked, `${tool} ${JSON.stringify(args)}`).toBe(true);
      if (outcome.blocked) expect(outcome.message).toContain('an extension of yours');
    }
    // The folder they sit in is not theirs: a file beside them is the user's to have written.
    const beside = await decideLoaded('Write', {
      file_path: join(guards, 'notes.md'),
      content: '',
    });
    expect(beside.blocked).toBe(false);
  });

  // The runtime loads a `paths` entry the moment it appears (the daemon watches for it): one the
  // user named before making it must not be the agent's to make.
  it('refuses making one that `paths` names and that is not there yet', async () => {
    const guards = tree({ 'my-guard/index.ts': tsExtension('my-guard') });
    writeFileSync(
      join(hermesHome, 'config.yaml'),
      `extensions:\n  paths: [${JSON.stringify(join(guards, 'later'))}]\n`,
    );
    const outcome = await decideLoaded('Write', {
      file_path: join(guards, 'later', 'index.ts'),
      content: 'export default {}',
    });
    // Refused as the user's code: not only because the missing entry fails the load.
    expect(outcome.blocked).toBe(true);
    if (outcome.blocked) expect(outcome.message).toContain('an extension of yours');
  });

  it('leaves out one inside the project, which is open while you work on it there', async () => {
    const guards = join(root, 'guards');
    mkdirSync(join(guards, 'my-guard'), { recursive: true });
    writeFileSync(join(guards, 'my-guard/index.ts'), tsExtension('my-guard'));
    writeFileSync(join(guards, 'loose.ts'), tsExtension('loose'));
    configure(guards);
    const outcome = await decideLoaded('Write', {
      file_path: join(guards, 'my-guard/index.ts'),
      content: '',
    });
    expect(outcome.blocked).toBe(false);
  });
});
