import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookClient } from '../../src/cli/commands/doctor/hook-client.js';
import { claudeCode } from '../../src/host/command-hook/agents.js';
import type { InstalledHook } from '../../src/host/command-hook/installed.js';
import { PERL } from '../../src/host/command-hook/perl-step.js';
import { tree } from '../support/fixtures.js';
import { built, root } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * `hermes extensions doctor` says whether the calls of a hook in the user's settings that a warm
 * daemon answers start Node (src/cli/commands/doctor/hook-client.ts): through the Perl hook
 * client they do not, which needs `/usr/bin/perl`, the client in the package the hook runs, and
 * the current program; the project form never uses it.
 */
const userHook = (overrides: Partial<InstalledHook> = {}): InstalledHook => ({
  file: '/home/u/.claude/settings.json',
  scope: 'user',
  command: '/bin/sh -c …',
  events: ['PreToolUse'],
  project: false,
  failsClosed: true,
  pinned: true,
  current: true,
  argv: [process.execPath, join(root, 'bin', 'hermes.js'), 'hook', 'claude-code'],
  missing: [],
  ...overrides,
});

/** A program at a path of its own that can run (a stand-in for Perl: only its mode is looked at). */
function runnable(): string {
  const path = join(tree({ perl: '#!/bin/sh\n' }), 'perl');
  chmodSync(path, 0o755);
  return path;
}

describe.runIf(built)("doctor: the hook's calls through the Perl hook client", () => {
  it('are answered without Node when Perl runs and the package has the client', () => {
    const perl = runnable();
    expect(hookClient(claudeCode, userHook(), perl)).toEqual({
      used: `a warm daemon answers through the Perl hook client (${perl}), no Node started`,
    });
  });

  it('start Node when Perl is not there, with how to install it', () => {
    const perl = join(tree(), 'perl');
    expect(hookClient(claudeCode, userHook(), perl)).toEqual({
      info: expect.stringContaining(`each call starts Node, even one a warm daemon answers`),
      fix: expect.stringContaining(`install Perl as ${perl}`),
    });
    // A file that is not a program is no Perl either.
    const plain = join(tree({ perl: '' }), 'perl');
    expect(hookClient(claudeCode, userHook(), plain)).toMatchObject({
      info: expect.stringContaining(`${plain} is not there`),
    });
  });

  it('start Node when the package the hook runs has no client, naming the file', () => {
    const bare = tree({ 'bin/hermes.js': '', 'dist/cli/main.js': '' });
    const hook = userHook({
      argv: [process.execPath, join(bare, 'bin', 'hermes.js'), 'hook', 'claude-code'],
    });
    expect(hookClient(claudeCode, hook, runnable())).toMatchObject({
      info: expect.stringContaining(`has no ${join(bare, 'dist', 'hook-client.pl')}`),
    });
  });

  it('start Node with a program of an earlier version, which install replaces', () => {
    expect(hookClient(claudeCode, userHook({ current: false }), runnable())).toEqual({
      info: expect.stringContaining('of an earlier version, which starts Node for every call'),
      fix: 'hermes hook install claude-code',
    });
  });

  it('are not told of the project form, nor of a command that does not fail closed', () => {
    const perl = runnable();
    expect(hookClient(claudeCode, userHook({ project: true, argv: [] }), perl)).toBeUndefined();
    expect(hookClient(claudeCode, userHook({ failsClosed: false }), perl)).toBeUndefined();
  });

  it.runIf(existsSync(PERL))('are told on the hook line of a hook install wrote', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'claude-code')).code).toBe(0);
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(
      /✓ Claude Code hook \(.*\): runs the hermes hook for .*; a warm daemon answers through the Perl hook client \(\/usr\/bin\/perl\), no Node started/,
    );
  });
});
