import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_HOOK_AGENTS } from '../../src/host/command-hook/agents.js';
import {
  MOVED_CA_CERTS,
  UNSET,
  unwrapHookCommand,
  wrappedHookCommand,
} from '../../src/host/command-hook/hook-wrapper.js';

/**
 * What the installed hook command takes out of the environment the agent hands it before hermes
 * starts (hook-wrapper.ts, UNSET): a project's settings can set that environment (Claude Code
 * passes a project's `env` on to its hooks), and each of these would run code of the project's
 * choosing inside hermes, or trust the project for the run.
 */
const SHOW = UNSET.map((name) => `"\${${name}-unset}"`).join(' ');

describe('the hook command’s environment', () => {
  it.each(Object.keys(COMMAND_HOOK_AGENTS))(
    '%s: hermes starts without any of them, in the user form and the project’s',
    (agent) => {
      const argv = ['/bin/sh', '-c', `printf '%s|' ${SHOW}`];
      const command = wrappedHookCommand(agent, argv, {
        HERMES_HOME: '/tmp/hermes-home',
        HERMES_DAEMON_DIR: '/tmp/hermes-daemons',
      });
      const env = {
        PATH: process.env.PATH,
        HERMES_TRUST_PROJECT: '1',
        NODE_OPTIONS: '--require ./x.cjs',
        NODE_PATH: './lib',
        NODE_COMPILE_CACHE: './.cache/node',
      };
      const run = spawnSync('/bin/sh', ['-c', command], { env, input: '{}', encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(UNSET.map(() => 'unset|').join(''));
      expect(UNSET).toContain('NODE_COMPILE_CACHE');
    },
  );

  it.each(Object.keys(COMMAND_HOOK_AGENTS))(
    '%s: hermes starts with NODE_EXTRA_CA_CERTS moved aside, and with nothing else under that name',
    (agent) => {
      const argv = [
        '/bin/sh',
        '-c',
        `printf '%s|' "\${NODE_EXTRA_CA_CERTS-unset}" "\${${MOVED_CA_CERTS}-unset}"`,
      ];
      const command = wrappedHookCommand(agent, argv, {
        HERMES_HOME: '/tmp/hermes-home',
        HERMES_DAEMON_DIR: '/tmp/hermes-daemons',
      });
      const seen = (env: Record<string, string>) =>
        spawnSync('/bin/sh', ['-c', command], {
          env: { PATH: process.env.PATH as string, ...env },
          input: '{}',
          encoding: 'utf8',
        }).stdout;
      expect(seen({ NODE_EXTRA_CA_CERTS: '/etc/corp ca.pem' })).toBe('unset|/etc/corp ca.pem|');
      expect(seen({ NODE_EXTRA_CA_CERTS: '' })).toBe('unset||');
      expect(seen({})).toBe('unset|unset|');
      // A project's value under the moved name would be put back as the agent's own.
      expect(seen({ [MOVED_CA_CERTS]: './evil.pem' })).toBe('unset|unset|');
    },
  );

  // The version before this one ran hermes first, without the Perl hook client: still known, not
  // current, so install rewrites it and doctor reports its program file.
  it('knows the commands of version 6, and takes them for not current', () => {
    const before = JSON.parse(
      readFileSync(
        new URL('./command-hook/moved-certificates-commands.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, { project: string; user: string }>;
    for (const [agent, commands] of Object.entries(before)) {
      expect(commands.user).toContain(MOVED_CA_CERTS);
      expect(commands.user).not.toContain('perl');
      expect(unwrapHookCommand(commands.user)).toMatchObject({
        agent,
        argv: ['/usr/bin/node', '/opt/hermes-extensions/bin/hermes.js', 'hook', agent],
        pinned: true,
        current: false,
      });
      expect(unwrapHookCommand(commands.project)).toMatchObject({ agent, current: false });
      // This version's command for the same words is another program.
      expect(
        wrappedHookCommand(
          agent,
          unwrapHookCommand(commands.user)?.argv,
          unwrapHookCommand(commands.user)?.pins,
        ),
      ).not.toBe(commands.user);
    }
  });

  // Version 5 started hermes with NODE_EXTRA_CA_CERTS: known the same way.
  it('knows the commands of version 5, and takes them for not current', () => {
    const before = JSON.parse(
      readFileSync(new URL('./command-hook/compile-cache-commands.json', import.meta.url), 'utf8'),
    ) as Record<string, { project: string; user: string }>;
    for (const [agent, commands] of Object.entries(before)) {
      expect(commands.user).toContain('NODE_COMPILE_CACHE');
      expect(commands.user).not.toContain(MOVED_CA_CERTS);
      expect(unwrapHookCommand(commands.user)).toMatchObject({
        agent,
        pinned: true,
        current: false,
      });
      expect(unwrapHookCommand(commands.project)).toMatchObject({ agent, current: false });
    }
  });

  // Version 4 left NODE_COMPILE_CACHE as the agent gave it: known the same way.
  it('knows the commands of the version before that, and takes them for not current', () => {
    const before = JSON.parse(
      readFileSync(new URL('./command-hook/folder-pinned-commands.json', import.meta.url), 'utf8'),
    ) as Record<string, { project: string; user: string }>;
    for (const [agent, commands] of Object.entries(before)) {
      expect(commands.user).not.toContain('NODE_COMPILE_CACHE');
      expect(unwrapHookCommand(commands.user)).toEqual({
        agent,
        argv: ['/usr/bin/node', '/opt/hermes-extensions/bin/hermes.js', 'hook', agent],
        pins: {
          HERMES_HOME: '/home/me/.hermes',
          HERMES_DAEMON_DIR: '/run/user/1000/hermes',
          CODEX_HOME: '/srv/codex',
        },
        pinned: true,
        current: false,
      });
      expect(unwrapHookCommand(commands.project)).toMatchObject({
        agent,
        argv: [],
        current: false,
      });
    }
  });
});
