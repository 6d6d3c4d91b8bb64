import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { bin, built, runProcess } from '../support/run-bin.js';

/** The real bin run from `cwd`, with its own $HERMES_HOME and $HOME, the project not trusted. */
function hermesIn(cwd: string, home: string, ...args: string[]) {
  return runProcess(process.execPath, [bin, ...args], {
    cwd,
    env: { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' },
  });
}

const untrusted = () =>
  tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
  });

/**
 * The trust hint names the project's folder only when the command ran from another one: inside
 * it, `hermes extensions trust` is the whole command, and an absolute `--cwd` is noise to copy.
 */
describe.runIf(built)('the trust hint', () => {
  for (const command of [
    ['extensions', 'doctor'],
    ['extensions', 'list'],
  ]) {
    it(`${command.join(' ')} in the project says the bare command`, async () => {
      const project = untrusted();
      const answer = await hermesIn(project, tree(), ...command);
      const said = answer.stdout + answer.stderr;
      expect(said).toMatch(/extensions trust(\n|$)/m);
      expect(said).not.toContain('trust --cwd');
    });

    it(`${command.join(' ')} in a subfolder or elsewhere names the project with --cwd`, async () => {
      const project = untrusted();
      const elsewhere = tree();
      for (const [cwd, args] of [
        [elsewhere, ['--cwd', project]],
        [join(project, '.hermes'), []],
      ] as const) {
        const answer = await hermesIn(cwd, tree(), ...command, ...args);
        expect(answer.stdout + answer.stderr).toContain(`extensions trust --cwd ${project}`);
      }
    });
  }
});
