import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * Protected ground and the patches a shell command applies (docs/trust.md, Protected ground):
 * which file a patch entry writes depends on the command's strip level and folder as much as on
 * its text — `a/.hermes/config.yaml` is harmless-looking at `-p0` and the config at `-p1`;
 * `.hermes/config.yaml` is the config at `-p0` and `config.yaml` at `-p1`. The rule reads the
 * patch file the command names, as the command would apply it; a patch it cannot read is refused.
 */
const hunk = (name: string) => `--- ${name}\n+++ ${name}\n@@ -1 +1 @@\n-a\n+b\n`;
const git = (name: string) =>
  `diff --git a/${name} b/${name}\n${hunk(`a/${name}`).replace(`+++ a/${name}`, `+++ b/${name}`)}`;

let root: string;

beforeEach(() => {
  const user = tree({ '.claude/.keep': '' });
  const hermesHome = join(user, 'hermes-home');
  mkdirSync(hermesHome);
  process.env.HOME = user;
  process.env.HERMES_HOME = hermesHome;
  root = tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'a\n',
    'config.yaml': 'a\n',
    'plans/active/plan.md': '# Plan\n',
    'plans/bare.diff': hunk('.hermes/config.yaml'),
    'plans/deep.diff': hunk('x/.hermes/config.yaml'),
    'plans/git.diff': git('.hermes/config.yaml'),
    'plans/git-deep.diff': git('q/.hermes/config.yaml'),
    'plans/git-config.diff': git('config.yaml'),
  });
});

async function decide(command: string) {
  const runtime = await createRuntime({ extensions: [], cwd: root, logger: memoryLogger() });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
  );
}

describe('protected ground: the files a patch command writes', () => {
  it.each([
    'patch -p0 < plans/bare.diff',
    'patch -p 0 -i plans/bare.diff',
    'patch --strip=0 --input=plans/bare.diff',
    'patch -Np0 -i plans/bare.diff',
    'patch -p1 < plans/deep.diff',
    'patch -d plans -p1 -i deep.diff',
    'git apply plans/git.diff',
    'git apply -p2 plans/git-deep.diff',
    'git apply --directory=.hermes plans/git-config.diff',
    'cd plans && git apply ../plans/git.diff',
  ])('refuses %s: it writes .hermes/config.yaml', async (command) => {
    const outcome = await decide(command);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
    if (!outcome.blocked) return;
    expect(outcome.blockedBy).toBe('hermes');
    expect(outcome.message).toMatch(/\.hermes\/config\.yaml.*protected ground/);
  });

  it.each([
    ['an option it does not know', 'patch --frobnicate -p1 -i plans/bare.diff'],
    ['a patch from a pipe', 'cat plans/bare.diff | patch -p1'],
    ['an ed script', 'patch -e -i plans/bare.diff config.yaml'],
    ['a strip level that is not a number', 'patch -px -i plans/bare.diff'],
    ['more folders stripped than a name has', 'patch -p3 -i plans/bare.diff'],
    ['a patch file that is not there', 'patch -p1 -i plans/missing.diff'],
    ['git apply elsewhere', 'git -C plans apply git.diff'],
  ])('refuses a patch it cannot read: %s', async (_what, command) => {
    const outcome = await decide(command);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
    if (!outcome.blocked) return;
    expect(outcome.message).toMatch(/applies a patch whose files cannot be read/);
  });

  it.each([
    'patch -p1 < plans/bare.diff',
    'patch -p2 -i plans/deep.diff',
    'git apply -p2 plans/git.diff',
    'git apply --check plans/git-config.diff',
    'cat plans/bare.diff | git apply --stat',
    'patch --dry-run -p0 < plans/bare.diff',
    'patch --version',
  ])('lets %s through: it writes no protected file', async (command) => {
    const outcome = await decide(command);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
  });
});
