import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';
import { socketFolder, startDaemon, stopDaemons } from './daemon-support.js';

/**
 * `hermes daemon status` in a terminal (src/cli/commands/daemon.ts): the daemon of the hooks
 * installed from that terminal is "this environment" although the hook's program pins
 * `$HERMES_HOME` and the daemon's folder and unsets other variables (hook-env.ts), and a daemon
 * that is not says what it differs in, by name, never by value.
 */
afterEach(stopDaemons);

describe.runIf(built)('hermes daemon status', () => {
  it("is this environment for the installed hooks' daemon, and says why another one is not", async () => {
    const user = tree();
    const dir = socketFolder();
    // The terminal: no HERMES_HOME (the default, ~/.hermes), a variable the hook unsets.
    const terminal = {
      HOME: user,
      HERMES_HOME: undefined,
      HERMES_DAEMON_DIR: dir,
      HERMES_TRUST_PROJECT: '1',
      HERMES_DAEMON: undefined,
    };
    // The daemon the installed hook starts: what the program pins set, what it unsets gone.
    const pinned = {
      ...terminal,
      HERMES_HOME: join(user, '.hermes'),
      HERMES_TRUST_PROJECT: undefined,
    };
    const hooks = await startDaemon(pinned);
    // Another: the same but for a variable that keys a daemon (the locale) and a secret's value.
    const other = await startDaemon({
      ...pinned,
      LC_MONETARY: 'C',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cret',
    });
    const said = await runBin(['daemon', 'status'], terminal);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toContain(`This environment: pid ${hooks.child.pid}, ${hooks.socket}`);
    expect(said.stdout).toContain(`Another environment: pid ${other.child.pid}, ${other.socket}`);
    const why = said.stdout.split('\n').find((line) => line.includes("not this environment's"));
    expect(why).toBeDefined();
    expect(why).toContain('OTEL_EXPORTER_OTLP_HEADERS (set there only)');
    expect(why).toMatch(/LC_MONETARY \((set there only|another value)\)/);
    expect(why).not.toContain('HERMES_HOME');
    expect(said.stdout).not.toContain('s3cret');
    const json = await runBin(['daemon', 'status', '--json'], terminal);
    expect(json.stdout).not.toContain('s3cret');
    const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(listed.find((d) => d.pid === other.child.pid)).toMatchObject({
      thisEnvironment: false,
      notThisEnvironment: expect.stringContaining('OTEL_EXPORTER_OTLP_HEADERS'),
    });
    // `stop` stops the installed hooks' daemon, and leaves the other.
    const stop = await runBin(['daemon', 'stop'], terminal);
    expect(stop.stdout).toContain(`Stopped the hook daemon ${hooks.child.pid}`);
    expect(stop.stdout).not.toContain(`${other.child.pid}`);
  });
});
