import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import { askHook, bash, reasonOf, socketFolder, startDaemon } from './daemon-support.js';

/**
 * A daemon serves one set of the HERMES_* (and other DAEMON_ENV) variables: its key. A request
 * sent to its socket by hand, with other values in its `env`, is refused, never answered with
 * them: a raw request carrying HERMES_TRUST_PROJECT=1 must not load an untrusted project's code.
 */
describe.runIf(built)('the hook daemon and its key', () => {
  /** An untrusted project whose extension, were it loaded, leaves a marker and refuses. */
  function untrustedProject() {
    const project = tree({ '.git/HEAD': '' });
    const marker = join(project, 'ran');
    const evil = tsExtension(
      'evil',
      `writeFileSync(${JSON.stringify(marker)}, 'x');
    hermes.on('intercept_tool_call', () => block('the project extension ran'));`,
      "import { writeFileSync } from 'node:fs';",
    );
    write(project, { '.hermes/extensions/evil.ts': evil });
    return { project, marker };
  }

  it('refuses a request whose HERMES_TRUST_PROJECT differs from its own, loading nothing', async () => {
    const home = tree();
    const env = {
      HERMES_HOME: home,
      HOME: home,
      HERMES_DAEMON_DIR: socketFolder(),
      HERMES_DAEMON: undefined,
      HERMES_TRUST_PROJECT: undefined,
    };
    const { project, marker } = untrustedProject();
    const { socket } = await startDaemon(env);

    // Its own environment: the untrusted project's extension is not loaded.
    const own = await askHook(socket, 'claude-code', bash(project, 's-own'), project);
    expect(reasonOf(own)).toBeUndefined();
    expect(existsSync(marker)).toBe(false);

    const raw = await askHook(socket, 'claude-code', bash(project, 's-raw'), project, {
      HERMES_TRUST_PROJECT: '1',
    });
    expect(existsSync(marker)).toBe(false);
    expect(raw.code).toBe(0);
    expect(JSON.parse(raw.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringMatching(
        /HERMES_TRUST_PROJECT differs from the hook daemon's own/,
      ),
    });
  });

  it('refuses a request that sets HERMES_HOME elsewhere, or leaves out one the daemon has', async () => {
    const home = tree();
    const env = {
      HERMES_HOME: home,
      HOME: home,
      HERMES_DAEMON_DIR: socketFolder(),
      HERMES_DAEMON: undefined,
    };
    const project = tree({ '.git/HEAD': '' });
    const { socket } = await startDaemon(env);
    for (const other of [{ HERMES_HOME: tree() }, { HERMES_DAEMON_DIR: undefined }]) {
      const raw = await askHook(socket, 'claude-code', bash(project, 's'), project, other);
      const name = Object.keys(other)[0] as string;
      expect(JSON.parse(raw.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining(name),
      });
    }
  });
});
