import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * Protected ground read as words (docs/trust.md, Protected ground): a line whose writes cannot be
 * listed may not name protected ground, and no line may run a framework command that changes it.
 * A line made only of programs known to only read, writing no file — `grep` for the command's
 * name, `git add` of a config file, which only stages it — neither runs nor changes anything, and
 * passes; anything that could run or write still does not.
 */
let root: string;

beforeEach(() => {
  const user = tree({ '.claude/.keep': '' });
  const hermesHome = join(user, 'hermes-home');
  mkdirSync(hermesHome);
  process.env.HOME = user;
  process.env.HERMES_HOME = hermesHome;
  root = tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions: {}\n',
    'docs/setup.md': 'Run hermes extensions trust once.\n',
  });
});

async function decide(command: string) {
  const runtime = await createRuntime({ extensions: [], cwd: root, logger: memoryLogger() });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
  );
}

describe('protected ground: lines that only mention it', () => {
  it.each([
    'grep -rn "hermes extensions trust" docs',
    'grep "hermes hook install" docs/setup.md | head -3',
    'git add .hermes/config.yaml',
    'git add -A .hermes',
  ])('lets %s through: it only reads (or stages)', async (command) => {
    const outcome = await decide(command);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
  });

  it.each([
    'grep x docs/setup.md; hermes extensions trust --yes',
    'grep x $(hermes extensions trust --yes)',
    'echo "hermes extensions trust --yes" > run.sh',
    'grep "hermes extensions trust" docs/setup.md > notes.txt',
    "sh -c 'grep hermes docs/setup.md; hermes extensions trust --yes'",
    'echo . | xargs hermes extensions trust',
    'find . -maxdepth 0 -exec hermes extensions trust --yes ;',
    'git add .hermes && hermes extensions trust',
    'git -C .hermes add config.yaml',
    'git add .hermes/config.yaml > .hermes/x',
    'git commit -am x .hermes',
    'git add --chmod=+x .hermes/config.yaml && cp x .hermes/config.yaml',
  ])('still refuses %s', async (command) => {
    const outcome = await decide(command);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
  });
});
