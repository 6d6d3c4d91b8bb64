import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonLogPath } from '../../../src/host/daemon/daemon-log.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';
import {
  answeredAlike,
  answeredBy,
  ask,
  askHook,
  bash,
  hookClient,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';

/**
 * The daemon answers from what is on disk now, as a fresh hook process would: a runtime whose
 * code, data or trust changed is loaded anew (no module cache of the old load answers), a failed
 * load is tried again, and what an extension writes into its own folder reloads nothing.
 */

function setup(homeFiles: Record<string, string> = {}) {
  const home = tree(homeFiles);
  const project = tree({ '.git/HEAD': '' });
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: undefined,
  };
  return { home, project, env };
}

const both = (socket: string, event: ReturnType<typeof bash>) => answeredAlike(socket, event);

async function trust(project: string, env: Record<string, string | undefined>) {
  expect((await runBin(['extensions', 'trust', '--yes', '--cwd', project], env)).code).toBe(0);
}

/** A guard refusing the commands whose first word `denied` (imported from `from`) lists. */
const guardModule = (name: string, rules: string) => `${rules}
import { block, defineExtension } from 'hermes-extensions';
export default defineExtension({
  name: '${name}',
  setup(hermes) {
    hermes.on('intercept_tool_call', (e) => {
      const command = String(e.toolArgs.command);
      return denied.includes(command.split(' ')[0]) ? block('${name} refuses ' + command) : undefined;
    });
  },
});
`;

describe.runIf(built)('the hook daemon reloads', () => {
  it('a project guard (.mjs) tightened and trusted again, as a fresh hook process does', async () => {
    const { project, env } = setup();
    const rules = (denied: string[]) => `export const denied = ${JSON.stringify(denied)};\n`;
    write(project, {
      '.hermes/extensions/guard/index.mjs': guardModule(
        'guard',
        "import { denied } from './rules.mjs';",
      ),
      '.hermes/extensions/guard/rules.mjs': rules(['rm']),
    });
    await trust(project, env);
    const { socket } = await startDaemon(env);
    expect(reasonOf(await both(socket, bash(project, 'p', 'ls')))).toBeUndefined();
    expect(reasonOf(await both(socket, bash(project, 'p', 'rm x')))).toBe('guard refuses rm x');

    write(project, { '.hermes/extensions/guard/rules.mjs': rules(['rm', 'ls']) });
    await trust(project, env);
    expect(reasonOf(await both(socket, bash(project, 'p', 'ls')))).toBe('guard refuses ls');
  });

  it('a trusted project guard edited and not trusted again: the trusted one answers, until trust', async () => {
    const { project, env } = setup();
    const rules = (denied: string[]) => `export const denied = ${JSON.stringify(denied)};\n`;
    write(project, {
      '.hermes/extensions/guard/index.mjs': guardModule(
        'guard',
        "import { denied } from './rules.mjs';",
      ),
      '.hermes/extensions/guard/rules.mjs': rules(['rm']),
    });
    await trust(project, env);
    const { socket } = await startDaemon(env);
    expect(reasonOf(await both(socket, bash(project, 'h', 'rm x')))).toBe('guard refuses rm x');

    // Loosened on disk: the change waits for review, the trusted rules hold (docs/trust.md).
    write(project, { '.hermes/extensions/guard/rules.mjs': rules([]) });
    expect(reasonOf(await both(socket, bash(project, 'h', 'rm x')))).toBe('guard refuses rm x');
    // Changed again: still the trusted rules, not these.
    write(project, { '.hermes/extensions/guard/rules.mjs': rules(['rm', 'ls']) });
    expect(reasonOf(await both(socket, bash(project, 'h', 'ls')))).toBeUndefined();
    // Trusted: the rules on disk now answer.
    await trust(project, env);
    expect(reasonOf(await both(socket, bash(project, 'h', 'ls')))).toBe('guard refuses ls');
  });

  it("a global extension's rules.json tightened, required or imported", async () => {
    const required =
      "import { createRequire } from 'node:module';\nconst { denied } = createRequire(import.meta.url)('./rules.json');";
    const imported =
      "import rules from './rules.json' with { type: 'json' };\nconst { denied } = rules;";
    const { home, project, env } = setup({
      'extensions/required/index.mjs': guardModule('required', required),
      'extensions/required/rules.json': '{ "denied": ["rm"] }',
      'extensions/imported/index.mjs': guardModule('imported', imported),
      'extensions/imported/rules.json': '{ "denied": ["rm"] }',
    });
    const { socket } = await startDaemon(env);
    expect(reasonOf(await both(socket, bash(project, 'g', 'ls')))).toBeUndefined();

    write(home, { 'extensions/required/rules.json': '{ "denied": ["rm", "ls"] }' });
    expect(reasonOf(await both(socket, bash(project, 'g', 'ls')))).toBe('required refuses ls');
    write(home, {
      'extensions/required/rules.json': '{ "denied": ["rm"] }',
      'extensions/imported/rules.json': '{ "denied": ["rm", "ls"] }',
    });
    expect(reasonOf(await both(socket, bash(project, 'g', 'ls')))).toBe('imported refuses ls');
  });

  it('an extension whose setup failed, on the next event, once the cause is gone', async () => {
    const { home, project, env } = setup();
    // Its setup needs a service that is not up yet: a cause no file the daemon watches shows.
    const service = join(home, 'policy.sock');
    write(home, {
      'extensions/policy.ts': tsExtension(
        'policy',
        `await new Promise((up, down) => connect(${JSON.stringify(service)}).once('connect', function () { this.destroy(); up(undefined); }).once('error', down));
    hermes.on('intercept_tool_call', () => undefined);`,
        "import { connect } from 'node:net';",
      ).replace('setup(hermes)', 'async setup(hermes)'),
    });
    const { socket } = await startDaemon(env);
    const down = await both(socket, bash(project, 'f', 'ls'));
    expect(reasonOf(down)).toMatch(/extension "policy" .* failed to load/);

    const server = createServer((c) => c.end()).listen(service);
    await new Promise((listening) => server.once('listening', listening));
    try {
      expect(await both(socket, bash(project, 'f', 'ls'))).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    } finally {
      server.close();
    }
  });

  it('nothing for what an extension writes into its own folder: one load for 70 events', async () => {
    const { home, project, env } = setup();
    const loads = join(home, 'loads.txt');
    write(home, {
      'extensions/audit/index.ts': tsExtension(
        'audit',
        `appendFileSync(${JSON.stringify(loads)}, 'load\\n');
    hermes.on('intercept_tool_call', (e) => {
      const command = String(e.toolArgs.command);
      appendFileSync(join(hermes.extensionDir, 'audit.log'), command + '\\n');
      writeFileSync(join(hermes.extensionDir, 'state.json'), JSON.stringify({ last: command }));
      mkdirSync(join(hermes.extensionDir, 'runs'), { recursive: true });
      writeFileSync(join(hermes.extensionDir, 'runs', String(Date.now()) + '.txt'), command);
      return command === 'rm' ? block('audit refuses rm') : undefined;
    });`,
        "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';\nimport { join } from 'node:path';",
      ),
    });
    const loaded = () => readFileSync(loads, 'utf8').split('\n').length - 1;
    const { socket } = await startDaemon(env);
    for (let i = 0; i < 70; i++)
      await askHook(socket, 'claude-code', bash(project, 'w', 'ls'), project);
    expect(readFileSync(join(home, 'extensions/audit/audit.log'), 'utf8').split('\n')).toHaveLength(
      71,
    );
    // No reload per event, so no load's modules pile up in memory (what memory a runtime takes
    // is `hermes daemon status`'s, not a timing here): a reload for what the extension writes
    // would be one for each of the 70 events. On an idle machine it loads once; on a loaded one
    // (CI's process tier) the daemon has loaded it again up to three times in the 70, with no
    // stall in its log — a runtime that answered an event late is replaced, among other causes
    // (worker-handle.ts `fresh`) — so a few loads are allowed, and the log is shown past them.
    const log = daemonLogPath(home);
    const said = existsSync(log) ? readFileSync(log, 'utf8') : '';
    const byDaemon = loaded();
    expect(byDaemon, said).toBeLessThanOrEqual(5);
    expect((await ask(socket, '{"v":2,"control":"status"}')).runtimes).toBe(1);
    expect(reasonOf(await both(socket, bash(project, 'w', 'rm')))).toBe('audit refuses rm');
    // The fresh process loaded it once more (and the daemon, as above, a few times at most).
    expect(loaded()).toBeGreaterThan(byDaemon);
    expect(loaded(), said).toBeLessThanOrEqual(6);
  });

  it('a trust revoked between the read of the trust record and its stamp', async () => {
    const { home, project, env } = setup();
    write(project, {
      '.hermes/extensions/local.ts': tsExtension(
        'local',
        "hermes.on('intercept_tool_call', () => block('project says no'));",
      ),
    });
    await trust(project, env);
    // In the daemon's process: the first read of the trust record that follows the arming is
    // followed at once by a revocation, before anything else can look at the file.
    const work = tree({
      'revoke.cjs': `const fs = require('node:fs');
const { existsSync, rmSync, writeFileSync } = fs;
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  const bytes = read.call(this, path, ...rest);
  if (String(path).endsWith('trusted-projects.json') && existsSync(process.env.REVOKE_ARM)) {
    rmSync(process.env.REVOKE_ARM);
    const file = JSON.parse(read.call(fs, path, 'utf8'));
    delete file.projects[process.env.REVOKE_ROOT];
    writeFileSync(path, JSON.stringify(file));
  }
  return bytes;
};`,
    });
    const arm = join(work, 'arm');
    const raced = { ...env, NODE_OPTIONS: `--require ${join(work, 'revoke.cjs')}` };
    const { socket } = await startDaemon({ ...raced, REVOKE_ARM: arm, REVOKE_ROOT: project });
    write(work, { arm: '' });
    // Read while trusted: this answer is the project's, as it would be in a process that read it then.
    const first = await hookClient(socket, 'claude-code', bash(project, 'r-d', 'ls'));
    expect(await answeredBy(socket)).toBe(1);
    expect(reasonOf(first)).toBe('project says no');
    expect(JSON.parse(readFileSync(join(home, 'trusted-projects.json'), 'utf8')).projects).toEqual(
      {},
    );
    const revoked = await both(socket, bash(project, 'r', 'ls'));
    expect(reasonOf(revoked)).toBeUndefined();
    expect(JSON.parse(revoked.stdout).systemMessage).toMatch(/not running/);
  });
});
