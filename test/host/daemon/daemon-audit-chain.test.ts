import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyAuditChain } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, root } from '../../support/run-bin.js';
import {
  answeredBy,
  bash,
  ended,
  freshHook,
  hookClient,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';

/**
 * Every decision of every host lands in the audit chain once: a hook process answered by the
 * daemon (its runtime worker writes the line) and one answered in-process (the hook process
 * writes it), on one project's trail at the same time, leave one line each and one chain.
 */
describe.runIf(built)('the audit chain, written by the daemon and by hook processes', () => {
  it('holds each decision once, in one chain, whichever process decided it', async () => {
    const home = tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`,
      'extensions/decider.ts': tsExtension(
        'decider',
        `hermes.on('intercept_tool_call', (e) => block('decided: ' + String(e.toolArgs.command)));`,
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    const daemon = await startDaemon({
      HERMES_HOME: home,
      HOME: home,
      HERMES_DAEMON: undefined,
      HERMES_DAEMON_DIR: socketFolder(),
    });
    const before = await answeredBy(daemon.socket);
    const calls = ['d1', 'd2', 'd3'].map((command) =>
      hookClient(daemon.socket, 'claude-code', bash(project, 's1', command)),
    );
    const fresh = ['f1', 'f2'].map((command) =>
      freshHook(daemon.socket, 'claude-code', bash(project, 's2', command)),
    );
    const answers = await Promise.all([...calls, ...fresh]);
    expect(answers.map(reasonOf)).toEqual(
      ['d1', 'd2', 'd3', 'f1', 'f2'].map((command) => `decided: ${command}`),
    );
    // The three went through the daemon; the two others never reached it.
    expect(await answeredBy(daemon.socket)).toBe(before + 3);
    // Stopped, the daemon closes its runtimes: their lines are on disk.
    expect(await ended(daemon.child, 'SIGTERM')).toBe(0);

    const file = join(project, '.hermes/audit/audit.jsonl');
    expect(existsSync(file), daemon.stderr()).toBe(true);
    const decisions = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.event === 'hook_decision')
      .map((line) => line.message)
      .sort();
    expect(decisions).toEqual(['d1', 'd2', 'd3', 'f1', 'f2'].map((c) => `decided: ${c}`));
    expect(verifyAuditChain([{ path: file, bytes: readFileSync(file) }])).toMatchObject({
      status: 'ok',
      unchained: 0,
    });
  }, 60_000);
});
