import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookFile, hookLine, parseHookLine } from '../../../src/host/command-hook/hook-line.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runBin, runProcess } from '../../support/run-bin.js';

/**
 * The short line `hermes hook install <agent>` writes in the user's own settings for each event
 * (src/host/command-hook/hook-line.ts): it runs the fail-closed program from a file under
 * `$HERMES_HOME`, and refuses by the agent's exit code — 2 at a tool call and a prompt, 1 (a
 * failure that blocks nothing) elsewhere — whatever became of that file. Run as the agents run
 * it: Claude Code with `sh -c`, Codex with the user's shell; the program's own /bin/sh replaced
 * by dash and by bash.
 */

type Agent = 'claude-code' | 'codex';
const AGENTS: Agent[] = ['claude-code', 'codex'];
const SHELLS = ['/usr/bin/dash', '/usr/bin/bash'];

const EVENTS: Record<Agent, string[]> = {
  'claude-code': [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PostToolBatch',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
};
/** Where exit 2 is the agent's refusal; anywhere else it would be a block that keeps it going. */
const BLOCKING = ['PreToolUse', 'UserPromptSubmit'];

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
);

interface Installed {
  env: Record<string, string>;
  project: string;
  /** Each event's command, as the settings hold it. */
  lines: Record<string, string>;
  file: string;
  settings: string;
}

/** `hermes hook install <agent>` in a fresh home with the guard; no daemon. */
async function install(agent: Agent): Promise<Installed> {
  const home = tree({ '.hermes/extensions/guard.ts': guard });
  const env = {
    HOME: home,
    HERMES_HOME: join(home, '.hermes'),
    HERMES_DAEMON: '0',
    CODEX_HOME: '',
  };
  const done = await runBin(['hook', 'install', agent], env);
  expect(done.code, done.stderr).toBe(0);
  const settings = join(
    home,
    agent === 'claude-code' ? '.claude/settings.json' : '.codex/hooks.json',
  );
  const hooks = JSON.parse(readFileSync(settings, 'utf8')).hooks as Record<
    string,
    { hooks: { command: string }[] }[]
  >;
  const lines = Object.fromEntries(
    Object.entries(hooks).map(([event, entries]) => [
      event,
      entries[0]?.hooks[0]?.command as string,
    ]),
  );
  const project = tree({ '.git/HEAD': '' });
  return { env, project, lines, file: hookFile(env.HERMES_HOME, agent), settings };
}

/** One event as the agent sends it, compact; a tool call that names a secret. */
function event(name: string, project: string): string {
  return JSON.stringify({
    session_id: 'line',
    turn_id: 't1',
    cwd: project,
    hook_event_name: name,
    tool_name: 'Bash',
    tool_input: { command: 'cat secret' },
    tool_use_id: `c-${name}`,
    prompt: 'tidy up',
  });
}

/** The line as the agent runs it, with `shell` as its /bin/sh (and `outer` as the agent's). */
function runLine(at: Installed, agent: Agent, name: string, shell: string, outer?: string) {
  const line = at.lines[name] as string;
  const command = `${shell}${line.slice('/bin/sh'.length)}`;
  const through = outer ?? (agent === 'claude-code' ? '/bin/sh' : '/usr/bin/bash');
  return runProcess(through, ['-c', command], {
    cwd: at.project,
    env: { ...at.env, ...(agent === 'claude-code' ? { CLAUDE_PROJECT_DIR: at.project } : {}) },
    stdin: event(name, at.project),
  });
}

/** Every event refuses by exit code, saying what to run; stdout, which the agent ignores then, aside. */
async function expectRefused(at: Installed, agent: Agent, shell: string, what: string) {
  for (const name of EVENTS[agent]) {
    const answer = await runLine(at, agent, name, shell);
    const where = `${agent} ${shell} ${name} (${what}): ${answer.stderr}`;
    expect(answer.code, where).toBe(BLOCKING.includes(name) ? 2 : 1);
    expect(answer.stderr, where).toContain(
      `hermes: ${at.file} is missing or altered: run hermes hook install ${agent}`,
    );
  }
}

/** The guard answers through the line: the secret is refused. */
async function expectGuarded(at: Installed, agent: Agent, shell: string) {
  const answer = await runLine(at, agent, 'PreToolUse', shell);
  expect(answer.code, answer.stderr).toBe(0);
  expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecisionReason).toBe('no secrets');
}

/** Makes the file writable for the attack (install writes it read-only). */
function writable(file: string): void {
  chmodSync(file, 0o600);
}

/** What becomes of the file (made writable first: install writes it read-only). */
const ATTACKS: Array<[string, (file: string) => void]> = [
  ['deleted', (file) => rmSync(file)],
  ['emptied', (file) => writeFileSync(file, '')],
  ['replaced with exit 0', (file) => writeFileSync(file, 'exit 0\n')],
  [
    'replaced with an answer that allows',
    (file) =>
      writeFileSync(
        file,
        `printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; exit 0\n`,
      ),
  ],
  [
    'cut short',
    (file) => {
      const text = readFileSync(file, 'utf8');
      // Inside the line every call reads; the second is read only when hermes failed (below).
      writeFileSync(file, `${text.slice(0, text.indexOf('\n') / 2)}\n`);
    },
  ],
  [
    'its two lines joined',
    (file) => writeFileSync(file, readFileSync(file, 'utf8').replace('\n', '')),
  ],
  [
    'a folder in its place',
    (file) => {
      rmSync(file);
      mkdirSync(file);
    },
  ],
];

describe.runIf(built).each(AGENTS)('the short line %s installs', (agent) => {
  it('is one short line per event, naming the program file under $HERMES_HOME by its path', async () => {
    const at = await install(agent);
    expect(Object.keys(at.lines)).toEqual(EVENTS[agent]);
    for (const [name, line] of Object.entries(at.lines)) {
      expect(parseHookLine(line), line).toEqual(
        expect.objectContaining({ file: at.file, agent, event: name }),
      );
      // The program, the node and package paths are in the file, not in the settings.
      expect(line).not.toContain(process.execPath);
      expect(line.length - at.file.length, line).toBeLessThan(220);
    }
    expect(readFileSync(at.file, 'utf8')).toContain(process.execPath);
    // Read, never executed: its mode does not matter, and nobody else may read it.
    expect(statSync(at.file).mode & 0o777).toBe(0o400);
  });

  it.each(SHELLS)(
    'refuses every event when its program file is deleted, emptied, replaced, cut or a folder (%s)',
    async (shell) => {
      const at = await install(agent);
      await expectGuarded(at, agent, shell);
      for (const [what, attack] of ATTACKS) {
        writable(at.file);
        attack(at.file);
        await expectRefused(at, agent, shell, what);
        rmSync(at.file, { recursive: true, force: true });
        // Installing again writes it back, and the guard answers again.
        const again = await runBin(['hook', 'install', agent], at.env);
        expect(again.code, again.stderr).toBe(0);
        await expectGuarded(at, agent, shell);
      }
    },
  );

  it.runIf(agent === 'claude-code')(
    'is on protected ground: the agent may not write its program file',
    async () => {
      const at = await install(agent);
      const answer = await runProcess('/bin/sh', ['-c', at.lines.PreToolUse as string], {
        cwd: at.project,
        env: { ...at.env, CLAUDE_PROJECT_DIR: at.project },
        stdin: JSON.stringify({
          session_id: 'line',
          cwd: at.project,
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_input: { file_path: at.file, content: 'exit 0\n' },
          tool_use_id: 'w1',
        }),
      });
      expect(answer.code, answer.stderr).toBe(0);
      const decision = JSON.parse(answer.stdout).hookSpecificOutput;
      expect(decision.permissionDecision).toBe('deny');
      expect(decision.permissionDecisionReason).toContain('HERMES_HOME');
    },
  );

  it('runs the guard from a file that is not executable: it is read, not run', async () => {
    const at = await install(agent);
    chmodSync(at.file, 0o644);
    await expectGuarded(at, agent, SHELLS[0] as string);
  });

  it.runIf(process.getuid?.() !== 0)('refuses when its file cannot be read', async () => {
    const at = await install(agent);
    chmodSync(at.file, 0o000);
    await expectRefused(at, agent, SHELLS[0] as string, 'unreadable');
  });

  // Codex starts a hook with the user's `$SHELL -lc`. CI installs both shells (.ci/run);
  // elsewhere one that is not installed is skipped, saying so.
  for (const outer of ['/usr/bin/zsh', '/usr/bin/fish']) {
    const here = existsSync(outer) || process.env.CI !== undefined;
    (here ? it : it.skip)(
      `means the same through ${outer}${here ? '' : ' (not installed here)'}: guards, and refuses when the file is replaced`,
      async () => {
        const at = await install(agent);
        const pre = await runLine(at, agent, 'PreToolUse', '/bin/sh', outer);
        expect(JSON.parse(pre.stdout).hookSpecificOutput.permissionDecisionReason).toBe(
          'no secrets',
        );
        writable(at.file);
        writeFileSync(at.file, 'exit 0\n');
        for (const name of ['PreToolUse', 'Stop']) {
          const answer = await runLine(at, agent, name, '/bin/sh', outer);
          expect(answer.code, `${outer} ${name}`).toBe(name === 'Stop' ? 1 : 2);
        }
      },
    );
  }

  it('answers for hermes when it cannot start or is killed: the program in the file runs', async () => {
    const at = await install(agent);
    const text = readFileSync(at.file, 'utf8');
    const killer = join(tree(), 'killed.sh');
    write(join(killer, '..'), { 'killed.sh': '#!/bin/sh\nkill -KILL $$\n' });
    chmodSync(killer, 0o755);
    for (const [from, to, why] of [
      [process.execPath, '/gone/bin/node', /\/gone\/bin\/node is missing/],
      [process.execPath, killer, /hermes ended with exit code 137 and no answer/],
    ] as const) {
      // A copy of the program with hermes' path changed, and a line of its length.
      const changed = text.replace(from, to);
      const file = join(tree(), agent);
      write(join(file, '..'), { [agent]: changed });
      const line = hookLine(file, 'PreToolUse', changed, 'run hermes hook install');
      const answer = await runProcess('/bin/sh', ['-c', line], {
        cwd: at.project,
        env: at.env,
        stdin: event('PreToolUse', at.project),
      });
      expect(answer.code, answer.stderr).toBe(0);
      const json = JSON.parse(answer.stdout);
      expect(json.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(json.hookSpecificOutput.permissionDecisionReason).toMatch(why);
    }
    // The fallback is the file's second line, which the first checks before it runs it: replaced,
    // a hermes that cannot start is refused by the line itself.
    const [first] = text.replace(process.execPath, '/gone/bin/node').split('\n');
    const forged = `${first}\nprintf {}; exit 0\n`;
    const file = join(tree(), agent);
    write(join(file, '..'), { [agent]: forged });
    const answer = await runProcess(
      '/bin/sh',
      ['-c', hookLine(file, 'PreToolUse', forged, 'run hermes hook install')],
      { cwd: at.project, env: at.env, stdin: event('PreToolUse', at.project) },
    );
    expect([answer.code, answer.stdout]).toEqual([2, '']);
    expect(answer.stderr).toContain(`hermes: ${file} is missing or altered`);
  });
});
