import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, runBin, runProcess } from '../../support/run-bin.js';
import { answeredBy, socketFolder, startDaemon } from '../daemon/daemon-support.js';

/**
 * Claude Code reads its settings from `$CLAUDE_CONFIG_DIR` (else `~/.claude`), Codex its hooks
 * from `$CODEX_HOME` (else `~/.codex`): a user who set one keeps the hermes hooks there, and
 * protected ground holds that folder as the hook's environment names it. That environment is
 * partly the project's (Claude Code passes the `env` of a project's `.claude/settings.json` to
 * every hook): a project that names another folder, or none, must not take the user's own off
 * protected ground. The user form carries the user's folders as install found them
 * (src/host/command-hook/hook-wrapper.ts, PINS). Run through the installed line, as the agents
 * run it.
 */

type Agent = 'claude-code' | 'codex';

interface Installed {
  home: string;
  project: string;
  /** The install's environment, the user's. */
  env: Record<string, string>;
  /** The PreToolUse command the settings hold. */
  line: string;
}

/** `hermes hook install <agent>` with `folders` (CLAUDE_CONFIG_DIR, CODEX_HOME) as the user set them. */
async function install(agent: Agent, folders: Record<string, string>): Promise<Installed> {
  const home = tree({ '.keep': '' });
  const env = {
    HOME: home,
    HERMES_HOME: join(home, '.hermes'),
    HERMES_DAEMON: '0',
    CODEX_HOME: '',
    CLAUDE_CONFIG_DIR: '',
    XDG_CONFIG_HOME: '',
    XDG_DATA_HOME: '',
    ZDOTDIR: '',
    BASH_ENV: '',
    HERMES_TRUST_PROJECT: '',
    ...folders,
  };
  const done = await runBin(['hook', 'install', agent], env);
  expect(done.code, done.stderr).toBe(0);
  const settings =
    agent === 'claude-code'
      ? join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'settings.json')
      : join(env.CODEX_HOME || join(home, '.codex'), 'hooks.json');
  const hooks = JSON.parse(readFileSync(settings, 'utf8')).hooks;
  const line = hooks.PreToolUse[0].hooks[0].command as string;
  return { home, project: tree({ '.git/HEAD': '' }), env, line };
}

/** Each call its own id: an id already decided for another call is refused (one id, one call). */
let calls = 0;

/**
 * The installed PreToolUse line run as the agent runs it, with `given` over the user's
 * environment (what a project's settings hand the hook; undefined: not set), on a call that
 * writes `file`.
 */
function preToolUse(
  at: Installed,
  agent: Agent,
  given: Record<string, string | undefined>,
  file: string,
) {
  const call =
    agent === 'claude-code'
      ? { tool_name: 'Write', tool_input: { file_path: file, content: '{}' } }
      : { tool_name: 'Bash', tool_input: { command: `echo '{}' > ${file}` } };
  return runProcess(agent === 'claude-code' ? '/bin/sh' : '/usr/bin/bash', ['-c', at.line], {
    cwd: at.project,
    env: {
      ...at.env,
      ...(agent === 'claude-code' ? { CLAUDE_PROJECT_DIR: at.project } : {}),
      ...given,
    },
    stdin: JSON.stringify({
      session_id: 'pin',
      turn_id: 't1',
      cwd: at.project,
      hook_event_name: 'PreToolUse',
      tool_use_id: `c${++calls}`,
      ...call,
    }),
  });
}

/** The refusal's reason, or undefined when the call was let through. */
function refusal(answer: { code: number; stdout: string; stderr: string }): string | undefined {
  expect(answer.code, answer.stderr).toBe(0);
  if (answer.stdout.trim() === '') return undefined;
  const output = JSON.parse(answer.stdout).hookSpecificOutput;
  return output?.permissionDecision === 'deny' ? output.permissionDecisionReason : undefined;
}

/** What a project's `env` may say of the variable: another folder, empty, or nothing. */
const PROJECT_VALUES = (other: string): Array<[string, string | undefined]> => [
  ['another folder', other],
  ['an empty value', ''],
  ['no value', undefined],
];

describe.runIf(built)('the user form pins the agents’ config folders', { timeout: 120_000 }, () => {
  it("keeps the user's CLAUDE_CONFIG_DIR protected whatever the project's env says of it", async () => {
    const custom = join(tree({ '.keep': '' }), 'claude-work');
    const at = await install('claude-code', { CLAUDE_CONFIG_DIR: custom });
    const elsewhere = tree({ '.keep': '' });
    for (const [what, value] of PROJECT_VALUES(elsewhere)) {
      for (const [file, place] of [
        ['settings.json', "Claude Code's user hook settings"],
        ['settings.local.json', "Claude Code's user hook settings"],
        ['.claude.json', "Claude Code's user config"],
      ] as const) {
        const reason = refusal(
          await preToolUse(at, 'claude-code', { CLAUDE_CONFIG_DIR: value }, join(custom, file)),
        );
        expect(reason, `${file}, the project's env giving ${what}`).toContain(place);
      }
    }
  });

  it("keeps the user's CODEX_HOME protected whatever the environment Codex gives the hook says of it", async () => {
    const custom = join(tree({ '.keep': '' }), 'codex-work');
    const at = await install('codex', { CODEX_HOME: custom });
    const elsewhere = tree({ '.keep': '' });
    for (const [what, value] of PROJECT_VALUES(elsewhere)) {
      const reason = refusal(
        await preToolUse(at, 'codex', { CODEX_HOME: value }, join(custom, 'hooks.json')),
      );
      expect(reason, `the environment giving ${what}`).toContain("Codex's user hooks and config");
    }
  });

  // `$XDG_CONFIG_HOME` places OpenCode's plugins, VS Code's and Claude Desktop's MCP servers:
  // an agent that adds a plugin there under Claude Code runs its code in OpenCode next time.
  it("keeps the user's XDG_CONFIG_HOME protected whatever the project's env says of it", async () => {
    const custom = join(tree({ '.keep': '' }), 'config');
    const at = await install('claude-code', { XDG_CONFIG_HOME: custom });
    const elsewhere = tree({ '.keep': '' });
    for (const [what, value] of PROJECT_VALUES(elsewhere)) {
      const file = join(custom, 'opencode', 'plugins', 'helper.js');
      const reason = refusal(await preToolUse(at, 'claude-code', { XDG_CONFIG_HOME: value }, file));
      expect(reason, `the project's env giving ${what}`).toContain("OpenCode's user plugins");
    }
  });

  // A login shell reads zsh's files from `$ZDOTDIR` before a Codex hook's command runs.
  it("keeps the user's ZDOTDIR protected whatever the project's env says of it", async () => {
    const custom = join(tree({ '.keep': '' }), 'zsh');
    const at = await install('claude-code', { ZDOTDIR: custom });
    const elsewhere = tree({ '.keep': '' });
    for (const [what, value] of PROJECT_VALUES(elsewhere)) {
      const file = join(custom, '.zprofile');
      const reason = refusal(await preToolUse(at, 'claude-code', { ZDOTDIR: value }, file));
      expect(reason, `the project's env giving ${what}`).toContain("a login shell's start-up file");
    }
  });

  // Each line carries both: the Codex hooks are protected ground under Claude Code too.
  it("keeps the user's CODEX_HOME protected under Claude Code's hook, and CLAUDE_CONFIG_DIR under Codex's", async () => {
    const claude = join(tree({ '.keep': '' }), 'claude-work');
    const codexHome = join(tree({ '.keep': '' }), 'codex-work');
    const folders = { CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codexHome };
    const hidden = { CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined };
    const underClaude = await install('claude-code', folders);
    expect(
      refusal(await preToolUse(underClaude, 'claude-code', hidden, join(codexHome, 'hooks.json'))),
    ).toContain("Codex's user hooks and config");
    const underCodex = await install('codex', folders);
    expect(
      refusal(await preToolUse(underCodex, 'codex', hidden, join(claude, 'settings.json'))),
    ).toContain("Claude Code's user hook settings");
  });

  // The daemon is keyed on CLAUDE_CONFIG_DIR (src/host/daemon/protocol.ts, DAEMON_ENV): the hook
  // asks the daemon of the user's folder, which judges with it, not one of the project's value.
  it("asks the daemon of the user's CLAUDE_CONFIG_DIR, which refuses a write there", async () => {
    const custom = join(tree({ '.keep': '' }), 'claude-work');
    const user = {
      HERMES_DAEMON_DIR: socketFolder(),
      CLAUDE_CONFIG_DIR: custom,
      HERMES_DAEMON_IDLE_MS: '30000',
    };
    const at = await install('claude-code', user);
    // The daemon as the hook client would start it, from what the program leaves of the environment.
    const { socket } = await startDaemon({
      ...at.env,
      HERMES_DAEMON: undefined,
      HERMES_TRUST_PROJECT: undefined,
      NODE_OPTIONS: undefined,
      NODE_PATH: undefined,
    });
    const before = await answeredBy(socket);
    const given = { CLAUDE_CONFIG_DIR: tree({ '.keep': '' }), HERMES_DAEMON: undefined };
    const answer = await preToolUse(at, 'claude-code', given, join(custom, 'settings.json'));
    expect(refusal(answer)).toContain("Claude Code's user hook settings");
    expect(await answeredBy(socket)).toBe(before + 1);
  });

  // Unpinned, the environment's folder is protected as before (a folder the user named after
  // install included), beside the defaults, which no environment takes off.
  it('without a folder at install, protects the default and the folder the environment names', async () => {
    const at = await install('claude-code', {});
    const named = tree({ '.keep': '' });
    const given = { CLAUDE_CONFIG_DIR: named };
    for (const file of [join(at.home, '.claude', 'settings.json'), join(named, 'settings.json')]) {
      expect(refusal(await preToolUse(at, 'claude-code', given, file)), file).toContain(
        "Claude Code's user hook settings",
      );
    }
    // And an ordinary file outside them passes: the refusals above are protected ground's.
    expect(
      refusal(await preToolUse(at, 'claude-code', given, join(at.project, 'notes.md'))),
    ).toBeUndefined();
  });
});
