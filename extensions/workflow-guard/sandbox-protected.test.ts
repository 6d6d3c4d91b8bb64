import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { sandboxCommand } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import { runShell, sandbox, sandboxMissingTest } from '../../test/support/sandbox.js';
import workflowGuard from './index.js';

/**
 * Protected ground in the OS sandbox (docs/trust.md, Protected ground): a command the analysis
 * cannot read, that builds the names it writes at run time so no static reading sees them, runs
 * in workflow-guard's sandbox — even where `allowed_paths` makes the whole project writable — and
 * cannot change the project's hermes config, the agents' hook settings or `$HERMES_HOME`.
 */
let user: string;
let home: string;

beforeEach(() => {
  user = tree({ '.claude/settings.json': '{}\n' });
  home = join(user, 'hermes-home');
  mkdirSync(home);
  process.env.HOME = user;
  process.env.HERMES_HOME = home;
});

function project() {
  return tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions: {}\n',
    '.claude/settings.json': '{}\n',
    'src/app.ts': 'export const app = 1;\n',
  });
}

/** Each write on its own, so one refused does not stop the others; the names in pieces. */
const WRITES = `
import os
def attempt(path):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, 'w').write('pwned')
    except OSError:
        pass
h = os.environ['HO' + 'ME']
attempt('.her' + 'mes/config.yaml')
attempt('.her' + 'mes/extensions/x.mjs')
attempt('.cla' + 'ude/settings.json')
attempt('.co' + 'dex/hooks.json')
attempt('.cur' + 'sor/hooks.json')
attempt('her' + 'mes.config.mjs')
attempt(h + '/.cla' + 'ude/settings.json')
attempt(os.environ['HERMES' + '_HOME'] + '/trusted-projects.json')
attempt('src/app.ts')
`;

describe('protected ground in the sandbox', () => {
  sandboxMissingTest();

  describe.runIf(sandbox.available)('with the sandbox', () => {
    // The whole project writable: the runtime's `srt` line (a writable path holds the root).
    // Protected folders named writable: our own bubblewrap line, which binds them read-only again.
    for (const [allowed, line] of [
      [['.'], ' --settings '],
      [['src/', '.hermes/'], ' --unshare-net '],
    ] as const) {
      it(`keeps protected ground read-only though allowed_paths is ${JSON.stringify(allowed)}`, async () => {
        const root = project();
        const runtime = await createRuntime({
          extensions: [workflowGuard],
          cwd: root,
          config: { extensions: { 'workflow-guard': { allowed_paths: [...allowed] } } },
          logger: memoryLogger(),
        });
        const command = `python3 -c "${WRITES.replace(/"/g, '\\"')}"`;
        const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
          turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
        );
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ blocked: false, changed: true });
        expect(outcome.value.command).toContain(line);
        const run = runShell(outcome.value.command as string, root);
        expect(run.code, run.stderr).toBe(0);
        // The sandbox let it write where it may…
        expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toBe('pwned');
        // …and nowhere on protected ground.
        expect(readFileSync(join(root, '.hermes/config.yaml'), 'utf8')).toBe('extensions: {}\n');
        expect(existsSync(join(root, '.hermes/extensions/x.mjs'))).toBe(false);
        expect(readFileSync(join(root, '.claude/settings.json'), 'utf8')).toBe('{}\n');
        expect(existsSync(join(root, '.codex/hooks.json'))).toBe(false);
        expect(existsSync(join(root, '.cursor/hooks.json'))).toBe(false);
        expect(existsSync(join(root, 'hermes.config.mjs'))).toBe(false);
        expect(readFileSync(join(user, '.claude/settings.json'), 'utf8')).toBe('{}\n');
        expect(existsSync(join(home, 'trusted-projects.json'))).toBe(false);
      });
    }

    it("our own line sent back with a plan runs as it is; altered, it is put in the framework's sandbox", async () => {
      const root = project();
      const runtime = await createRuntime({
        extensions: [],
        cwd: root,
        config: {},
        logger: memoryLogger(),
      });
      const send = (command: string) =>
        runtime.runTurn({ sessionId: 's' }, (turn) =>
          turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
        );
      const made = sandboxCommand('python3 -c "print(1)"', { root, writable: ['src/'] });
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      expect(made.command).toContain(' --unshare-net ');
      expect(await send(made.command)).toMatchObject({ blocked: false, changed: false });
      // Without its seccomp filter, or with a folder made writable that it holds read-only, it is
      // not that line: the framework's rule sandboxes it (or refuses it) as any other command.
      for (const altered of [
        made.command.replace(' --seccomp 9', ''),
        made.command.replace(' -- ', ` --bind '${root}/.git' '${root}/.git' -- `),
      ]) {
        const outcome = await send(altered);
        expect(outcome.blocked || outcome.changed, altered).toBe(true);
      }
    });
  });
});
