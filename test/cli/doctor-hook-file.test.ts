import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hookFile } from '../../src/host/command-hook/hook-line.js';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * The short line in the user's settings runs the program in $HERMES_HOME/hook-commands/<agent>
 * and refuses every call when that file is not what install wrote (hook-line.ts): doctor says
 * which, byte for byte — an edit of the same length, which the line cannot see, too — with the fix.
 */
describe.runIf(built).each(['claude-code', 'codex'])(
  'hermes extensions doctor: the program file of the %s hook',
  (agent) => {
    const title = agent === 'claude-code' ? 'Claude Code' : 'Codex';

    it('is ok as install wrote it, and an error missing or altered, with the fix', async () => {
      const home = tree();
      const project = tree({ '.git/HEAD': '' });
      expect((await hermes(home, 'hook', 'install', agent)).code).toBe(0);
      const file = hookFile(home, agent);
      const doctor = () => hermes(home, 'extensions', 'doctor', '--cwd', project);
      const ok = await doctor();
      expect(ok.stdout).toMatch(new RegExp(`✓ ${title} hook \\(.*\\): runs the hermes hook for`));
      chmodSync(file, 0o600);
      const text = readFileSync(file, 'utf8');
      for (const [change, said] of [
        ['exit 0\n', 'is not what this version of hermes writes'],
        // The same length: the line would run it; doctor does not pass it.
        [text.replace('hermes ended with', 'hermes enDed with'), 'is not what this version'],
      ] as const) {
        writeFileSync(file, change);
        const altered = await doctor();
        expect(altered.code).toBe(1);
        expect(altered.stdout).toContain(`its command runs the program in ${file}, which ${said}`);
        expect(altered.stdout).toContain(`fix: hermes hook install ${agent}`);
      }
      rmSync(file);
      const missing = await doctor();
      expect(missing.code).toBe(1);
      expect(missing.stdout).toContain(`its command runs the program in ${file}, which is missing`);
      expect(missing.stdout).toContain(`fix: hermes hook install ${agent}`);
      // One check for the hook, not one per event.
      expect(missing.stdout.match(/runs the program in/g)).toHaveLength(1);
    });
  },
);
