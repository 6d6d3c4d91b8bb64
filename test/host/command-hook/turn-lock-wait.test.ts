import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { distModule, runNodeScript } from '../../support/node-script.js';
import { built, runHook } from '../../support/run-bin.js';
import { bash, reasonOf } from '../daemon/daemon-support.js';

describe.runIf(built)(
  "a call whose session's turn lock another process holds past the deadline",
  () => {
    it('is refused naming the lock and what holds it, not a hanging handler', async () => {
      const home = tree({
        'extensions/quick.ts': tsExtension(
          'quick',
          `hermes.on('intercept_tool_call', () => block('decided'));`,
        ),
      });
      const project = tree({ '.git/HEAD': '' });
      // Another hook process of the session, still at work with the turn's lock.
      const holder = runNodeScript(`
      import { mkdirSync } from 'node:fs';
      import { acquireOwnedLock } from ${distModule('fs/owned-lock.js')};
      mkdirSync(${JSON.stringify(join(home, 'turns'))}, { recursive: true });
      await acquireOwnedLock(${JSON.stringify(join(home, 'turns/s1.lock'))});
      process.stdout.write('holding\\n');
      setInterval(() => {}, 1000);
    `);
      await holder.printed('holding');
      const answer = await runHook('claude-code', home, bash(project, 's1', 'ls'), {
        HERMES_DAEMON: '0',
        HERMES_HOOK_DEADLINE_MS: '2000',
      });
      const reason = reasonOf(answer);
      expect(reason).toContain(`waiting for the lock ${join(home, 'turns/s1.lock')}`);
      expect(reason).toContain(`held by process ${holder.child.pid} (still running)`);
      expect(reason).not.toMatch(/hanging/);
    });
  },
);
