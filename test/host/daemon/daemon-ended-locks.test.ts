import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireOwnedLock } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, root } from '../../support/run-bin.js';
import {
  askHook,
  bash,
  ended,
  freshHook,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';

/**
 * A global extension that, for the shell command `loop`, takes the project's audit lock (as
 * audit-log does while it writes) and then never yields; for `oom`, takes it and allocates until
 * its runtime runs out of memory; refuses everything else, naming it. Its handler runs under the
 * session's turn lock, so an ended runtime held both.
 */
const holder = tsExtension(
  'holder',
  `hermes.on('intercept_tool_call', async (e) => {
     const command = String(e.toolArgs.command);
     if (command === 'spin') for (;;) {}
     if (command === 'loop' || command === 'oom') {
       await acquireOwnedLock(join(hermes.projectRoot, '.hermes/audit/audit.jsonl.lock'));
       const kept = [];
       for (;;) if (command === 'oom') kept.push(new Array(100_000).fill(kept.length));
     }
     return block('decided: ' + command);
   }, { timeoutMs: Infinity });`,
  `import { join } from 'node:path';
import { acquireOwnedLock } from 'hermes-extensions';`,
);

function setup() {
  const auditLog = join(root, 'extensions/audit-log');
  const home = tree({
    'config.yaml': `extensions:\n  paths: [${JSON.stringify(auditLog)}]\n  audit-log: {}\n`,
    'extensions/holder.ts': holder,
  });
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON: undefined,
    HERMES_DAEMON_DIR: socketFolder(),
    // The runtime is taken for stuck 2 s past this.
    HERMES_HOOK_DEADLINE_MS: '8000',
    // Each runtime worker's heap, as the daemon's: `oom` reaches it in a moment.
    NODE_OPTIONS: '--max-old-space-size=160',
  };
  return { home, env, project: tree({ '.git/HEAD': '' }) };
}

/** The commands of the decisions in the project's audit trail. */
function audited(project: string): string[] {
  const file = join(project, '.hermes/audit/audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((line) => line.event === 'hook_decision' || line.decision !== undefined)
    .map((line) => JSON.stringify(line));
}

describe.runIf(built)('a runtime the hook daemon ends while it holds locks', () => {
  it.each([
    ['never yields', 'loop'],
    ['runs out of memory', 'oom'],
  ])(
    'that %s leaves none behind: the session and the audit trail go on at once',
    async (_, command) => {
      const { home, env, project } = setup();
      const daemon = await startDaemon(env);
      const ask = (session: string, what: string) =>
        askHook(daemon.socket, 'claude-code', bash(project, session, what));

      expect(reasonOf(await ask('s1', 'first'))).toBe('decided: first');
      // Ended by the daemon (stuck past the deadline, or out of memory): refused.
      const stuck = await ask('s1', command);
      expect(stuck.stdout).toMatch(/"permissionDecision":"deny"/);

      // The same session is decided by its extensions, not refused waiting for the ended runtime's
      // turn lock; and so is another.
      expect(reasonOf(await ask('s1', 'after'))).toBe('decided: after');
      expect(reasonOf(await ask('s2', 'other'))).toBe('decided: other');
      // And so is a hook process that answers in-process, outside the daemon.
      const fresh = await freshHook(daemon.socket, 'claude-code', bash(project, 's1', 'fresh'));
      expect(reasonOf(fresh)).toBe('decided: fresh');

      // Stopped, the daemon closes its runtimes: the trail has a line for every decided call.
      expect(await ended(daemon.child, 'SIGTERM')).toBe(0);
      const trail = audited(project).join('\n');
      for (const decided of ['first', 'after', 'other', 'fresh'])
        expect(trail, daemon.stderr()).toContain(`decided: ${decided}`);
      // The daemon's log (which doctor shows) says why the runtime ended and which locks went.
      const log = daemon.stderr();
      expect(log).toMatch(
        command === 'loop' ? /is ended, stuck past an event's deadline/ : /JS heap out of memory/,
      );
      expect(log).toContain(
        `ended holding the lock ${join(project, '.hermes/audit/audit.jsonl.lock')}`,
      );
      expect(log).toMatch(/ended holding the lock .*\/turns\/s1\.lock; removed/);
      // No lock is left in the project or the home.
      const locks = (dir: string) =>
        existsSync(dir) ? readdirSync(dir).filter((name) => name.includes('.lock')) : [];
      expect(locks(join(project, '.hermes/audit'))).toEqual([]);
      expect(locks(join(home, 'turns'))).toEqual([]);
    },
    60_000,
  );

  it('writes the audit lines of the calls it answered before the one that never yields', async () => {
    const { env, project } = setup();
    const daemon = await startDaemon(env);
    const ask = (session: string, what: string) =>
      askHook(daemon.socket, 'claude-code', bash(project, session, what));
    // The trail's writer must wait for its lock (another writer holds it a moment), so the line
    // of `first` is still in the runtime's memory when the next event comes: one that never yields.
    mkdirSync(join(project, '.hermes/audit'), { recursive: true });
    const other = await acquireOwnedLock(join(project, '.hermes/audit/audit.jsonl.lock'));
    expect(reasonOf(await ask('s1', 'first'))).toBe('decided: first');
    const stuck = ask('s2', 'spin');
    await new Promise((resolve) => setTimeout(resolve, 300));
    other.release();
    expect((await stuck).stdout).toMatch(/"permissionDecision":"deny"/);
    expect(await ended(daemon.child, 'SIGTERM')).toBe(0);
    expect(audited(project).join('\n'), daemon.stderr()).toContain('decided: first');
  }, 60_000);
});
