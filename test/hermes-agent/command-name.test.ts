import { spawnSync } from 'node:child_process';
import { chmodSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { installedCopy, shippedFiles } from '../support/installed-copy.js';
import { bin, built, runProcess } from '../support/run-bin.js';

/**
 * A stand-in for the Hermes agent's own `hermes` (a Python program there): it prints the
 * arguments it got and what came on stdin, and exits 7, so a test sees that the command, its
 * input and its exit code all reached it.
 */
function fakeAgent(): string {
  const dir = tree({
    hermes: '#!/bin/sh\nprintf "agent got:%s\\n" "$*"\ncat\nexit 7\n',
  });
  chmodSync(join(dir, 'hermes'), 0o755);
  return dir;
}

/** A folder with `hermes` and `hermes-extensions` linked to this checkout's bin, as npm links them. */
function ourBin(): string {
  const dir = tree();
  symlinkSync(bin, join(dir, 'hermes'));
  symlinkSync(bin, join(dir, 'hermes-extensions'));
  return dir;
}

/** `hermes …` as a shell finds it on `path` (folders, first first). */
function hermes(path: string[], args: string[], stdin = '') {
  const home = tree();
  return runProcess('hermes', args, {
    stdin,
    cwd: home,
    env: {
      PATH: [...path, process.env.PATH ?? ''].join(delimiter),
      HERMES_HOME: home,
      HOME: home,
    },
  });
}

describe.runIf(built && process.platform !== 'win32')('`hermes` beside the Hermes agent’s', () => {
  it('this package first on the PATH: every command but its own reaches the agent, with its input and exit code', async () => {
    const path = [ourBin(), fakeAgent()];
    const chat = await hermes(path, ['chat', '-q', 'hello there'], 'from stdin\n');
    expect(chat).toEqual({
      code: 7,
      stdout: 'agent got:chat -q hello there\nfrom stdin\n',
      stderr: '',
    });
    // No arguments starts the agent's chat; its help, its version and `doctor` are the agent's.
    for (const args of [[], ['--help'], ['--version'], ['doctor'], ['list']]) {
      const run = await hermes(path, args);
      expect(run.stdout, args.join(' ')).toBe(`agent got:${args.join(' ')}\n`);
      expect(run.code).toBe(7);
    }
  });

  it('this package first on the PATH: its own commands stay its own', async () => {
    const path = [ourBin(), fakeAgent()];
    const list = await hermes(path, ['extensions', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    const hook = await hermes(path, ['hook', 'claude-code'], '{}');
    expect(hook.stdout).not.toContain('agent got');
    const demoHelp = await hermes(path, ['daemon', '--help']);
    expect(demoHelp.stdout).toContain('hook daemon');
  });

  it('the agent first on the PATH: `hermes` is the agent’s, `hermes-extensions` this package’s', async () => {
    const path = [fakeAgent(), ourBin()];
    expect((await hermes(path, ['extensions', 'list'])).stdout).toBe('agent got:extensions list\n');
    const ours = await runProcess('hermes-extensions', ['--version'], {
      env: { PATH: [...path, process.env.PATH ?? ''].join(delimiter) },
    });
    expect(ours.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('without the agent, another copy of this package is not taken for it: no loop, this CLI answers', async () => {
    const global = installedCopy({ global: true });
    const path = [ourBin(), join(global.project, 'bin')];
    const run = await hermes(path, ['chat']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'chat'");
    expect((await hermes(path, ['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a `hermes` that hands the command back is caught: after a few hand-offs this CLI answers', async () => {
    // A wrapper script that runs this package's `hermes` (a link off the PATH): not recognisable
    // as this package by its path, it hands every command back.
    const wrapper = tree({ hermes: `#!/bin/sh\nexec "${join(ourBin(), 'hermes')}" "$@"\n` });
    chmodSync(join(wrapper, 'hermes'), 0o755);
    const run = await hermes([ourBin(), wrapper], ['chat']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('handed this command on to each other');
  });

  it('the package ships the pass-through and the plugin, without Python caches', () => {
    const files = shippedFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/agent-command.js',
        'clients/hermes-agent-plugin/plugin.yaml',
        'clients/hermes-agent-plugin/__init__.py',
      ]),
    );
    expect(files.filter((file) => file.includes('__pycache__'))).toEqual([]);
  });

  it('the agent ended by a signal ends `hermes` by the same signal', async () => {
    const agent = tree({ hermes: '#!/bin/sh\nkill -TERM $$\n' });
    chmodSync(join(agent, 'hermes'), 0o755);
    const run = spawnSync('hermes', ['chat'], {
      env: { ...process.env, PATH: [ourBin(), agent, process.env.PATH ?? ''].join(delimiter) },
    });
    expect(run.signal).toBe('SIGTERM');
  });
});
