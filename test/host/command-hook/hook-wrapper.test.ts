import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookFile, hookLine, parseHookLine } from '../../../src/host/command-hook/hook-line.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { bin, built, runBin, runHook, runProcess } from '../../support/run-bin.js';

/**
 * The command `hermes hook install` writes, run exactly as the agent runs it (its shell, `-c`,
 * the event on stdin), when hermes cannot run: each agent runs a tool call whose hook exits
 * 127 or 1, so the command itself must answer with a refusal that says how to fix it — and
 * never block a `Stop`, which would keep the agent going. Every answer is held to what the agent
 * accepts for the event (test/support/agent-answers.ts).
 */

type Agent = 'claude-code' | 'codex';
const AGENTS: Agent[] = ['claude-code', 'codex'];

/** The shells the installed program runs in: Debian's /bin/sh (dash), and bash (macOS's sh). */
const SHELLS = ['/usr/bin/dash', '/usr/bin/bash'];

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
);

/** A user's home with the guard, the Hermes home in it, and no daemon (one process per event). */
function userHome(): { home: string; env: Record<string, string> } {
  const home = tree({ '.hermes/extensions/guard.ts': guard });
  return {
    home,
    env: { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0', CODEX_HOME: '' },
  };
}

/** A git repository with a folder below its root (Codex runs a hook in the session's folder). */
function repository(name = 'project'): string {
  const project = join(tree(), name);
  mkdirSync(join(project, 'src/deep'), { recursive: true });
  execFileSync('git', ['init', '-q', project]);
  return project;
}

/**
 * The command `hermes hook install <agent>` wrote for PreToolUse: the project form's is the same
 * for every event; the user form's short lines differ by the event they name only, and run the
 * same program from the same file (hook-line.ts; its attacks: hook-line.test.ts).
 */
async function installedCommand(
  agent: Agent,
  env: Record<string, string>,
  project?: string,
): Promise<string> {
  const args = ['hook', 'install', agent, ...(project ? ['--project', '--cwd', project] : [])];
  const install = await runBin(args, env);
  expect(install.code, install.stderr).toBe(0);
  const file =
    agent === 'claude-code'
      ? join(project ?? env.HOME, '.claude/settings.json')
      : join(project ?? env.HOME, '.codex/hooks.json');
  const hooks = JSON.parse(readFileSync(file, 'utf8')).hooks;
  const commands = new Set(
    Object.values(hooks as Record<string, { hooks: { command: string }[] }[]>).flatMap((entries) =>
      entries.flatMap((entry) => entry.hooks.map((hook) => hook.command)),
    ),
  );
  if (project !== undefined) {
    expect(commands.size).toBe(1);
    return [...commands][0] as string;
  }
  const files = new Set([...commands].map((command) => parseHookLine(command)?.file));
  expect([...files]).toEqual([hookFile(env.HERMES_HOME as string, agent)]);
  return hooks.PreToolUse[0].hooks[0].command as string;
}

/**
 * `command` with `from` in the program it runs replaced by `to`: in the command line itself, or
 * (a short line) in a copy of its file, which a line of the copy's length runs.
 */
function replaced(command: string, from: string, to: string): string {
  const line = parseHookLine(command);
  if (line === undefined) return command.replace(from, to);
  const text = readFileSync(line.file, 'utf8').replace(from, to);
  const copy = join(tree(), line.agent);
  write(join(copy, '..'), { [line.agent]: text });
  return hookLine(copy, line.event, text, 'run hermes hook install');
}

interface Run {
  agent: Agent;
  command: string;
  /** The shell the installed program runs in (the command names /bin/sh). */
  shell: string;
  project: string;
  env: Record<string, string>;
}

/**
 * The command as the agent runs it: Claude Code with `sh -c` and the project's root in
 * $CLAUDE_PROJECT_DIR; Codex with the user's shell (bash here) in the session's folder. The
 * program's own /bin/sh is replaced by `shell`, to run it in dash and in bash.
 */
function runAsAgent(run: Run, stdin: string) {
  const command = run.command.startsWith('/bin/sh -c ')
    ? `${run.shell}${run.command.slice('/bin/sh'.length)}`
    : run.command;
  const claude = run.agent === 'claude-code';
  return runProcess(claude ? '/bin/sh' : '/usr/bin/bash', ['-c', command], {
    cwd: join(run.project, 'src/deep'),
    env: { ...run.env, ...(claude ? { CLAUDE_PROJECT_DIR: run.project } : {}) },
    stdin,
  });
}

/** One event of `name` as the agent sends it, compact as both write them. */
function event(agent: Agent, name: string, project: string): Record<string, unknown> {
  const base = {
    session_id: 'wrapper',
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : {}),
    transcript_path: null,
    cwd: join(project, 'src/deep'),
    hook_event_name: name,
    permission_mode: 'default',
  };
  const call = { tool_name: 'Bash', tool_input: { command: 'cat secret' }, tool_use_id: 'c1' };
  switch (name) {
    case 'PreToolUse':
      return { ...base, ...call };
    case 'UserPromptSubmit':
      return { ...base, prompt: 'tidy up' };
    case 'PostToolUse':
      return { ...base, ...call, tool_response: 'done' };
    case 'PostToolBatch':
      return { ...base, tool_calls: [{ ...call, tool_response: 'done' }] };
    case 'Stop':
      return { ...base, stop_hook_active: false };
    case 'SessionStart':
      return { ...base, source: 'startup' };
    default:
      return { ...base, reason: 'exit' };
  }
}

const EVENTS: Record<Agent, string[]> = {
  'claude-code': [
    'PreToolUse',
    'SessionStart',
    'UserPromptSubmit',
    'PostToolUse',
    'PostToolBatch',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  codex: ['PreToolUse', 'SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop'],
};

/**
 * The answer to every event the hook is installed for is the fail-closed one, with `why` in it:
 * a denied call, a blocked prompt, and for the rest a message only (exit 0, nothing blocks).
 */
async function expectFailsClosed(run: Run, why: RegExp): Promise<void> {
  for (const name of EVENTS[run.agent]) {
    const answer = await runAsAgent(run, JSON.stringify(event(run.agent, name, run.project)));
    const where = `${run.agent} ${run.shell} ${name}: ${answer.stderr}`;
    expect(answer.code, where).toBe(0);
    const json = JSON.parse(answer.stdout);
    const checked = answerSchema(run.agent, name).safeParse(json);
    expect(checked.error?.issues, `${where} ${answer.stdout}`).toBeUndefined();
    expect(answer.stderr, where).toMatch(why);
    if (name === 'PreToolUse') {
      expect(json.hookSpecificOutput, where).toEqual({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(why),
      });
      expect(json.hookSpecificOutput.permissionDecisionReason).toMatch(/^Hermes could not check/);
    } else if (name === 'UserPromptSubmit') {
      expect(json, where).toEqual({ decision: 'block', reason: expect.stringMatching(why) });
    } else {
      expect(json, where).toEqual({ systemMessage: expect.stringMatching(why) });
    }
  }
}

/** `node_modules/.bin/hermes` in `project`, linked to `target` (`npm install` makes a link). */
function binLink(project: string, target: string): void {
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(target, join(project, 'node_modules/.bin/hermes'));
}

/** An executable file. */
function script(file: string, text: string): string {
  write(file.slice(0, file.lastIndexOf('/')), { [file.slice(file.lastIndexOf('/') + 1)]: text });
  chmodSync(file, 0o755);
  return file;
}

/** A folder of the tools the program uses, without node: a PATH where node is missing. */
function pathWithoutNode(): string {
  const dir = tree();
  for (const tool of ['cat', 'tr', 'git', 'env', 'sh'])
    symlinkSync(`/usr/bin/${tool}`, join(dir, tool));
  return dir;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe.runIf(built).each(AGENTS)('the installed %s hook when hermes cannot run', (agent) => {
  it.each(SHELLS)(
    'the project form denies in %s: node_modules missing, package moved, node missing, a crash',
    async (shell) => {
      const { env } = userHome();
      const project = repository();
      const command = await installedCommand(agent, env, project);
      const run = { agent, command, shell, project, env };
      const missing = new RegExp(
        `${escaped(join(project, 'node_modules/.bin/hermes'))} is missing: run npm install in ${escaped(project)}`,
      );
      // A fresh clone, before npm install.
      await expectFailsClosed(run, missing);
      // The package the link points to moved away.
      binLink(project, '../hermes-extensions/bin/hermes.js');
      await expectFailsClosed(run, missing);
      // Installed, but the agent's PATH has no node.
      const moved = repository('moved');
      binLink(moved, bin);
      await expectFailsClosed(
        {
          ...run,
          project: moved,
          command: await installedCommand(agent, env, moved),
          env: { ...env, PATH: pathWithoutNode() },
        },
        /node is not on the PATH the hook runs with .*: install Node\.js, or put it on that PATH/,
      );
      // hermes starts and dies with a stack trace and no answer.
      const crashing = repository('crashing');
      binLink(
        crashing,
        script(
          join(tree(), 'hermes.js'),
          `#!/usr/bin/env node\nsetTimeout(() => { throw new Error('boom'); });\n`,
        ),
      );
      await expectFailsClosed(
        { ...run, project: crashing, command: await installedCommand(agent, env, crashing) },
        /hermes ended with exit code 1 and no answer/,
      );
    },
  );

  it.each(SHELLS)(
    'the user form denies in %s when its Node or its package is gone',
    async (shell) => {
      const { env } = userHome();
      const project = repository();
      const command = await installedCommand(agent, env);
      const program = readFileSync(parseHookLine(command)?.file as string, 'utf8');
      expect(program).toContain(process.execPath);
      expect(program).toContain(bin);
      const run = { agent, command, shell, project, env };
      await expectFailsClosed(
        { ...run, command: replaced(command, process.execPath, '/gone/bin/node') },
        /\/gone\/bin\/node is missing \(Node\.js moved or was removed\): run hermes hook install/,
      );
      await expectFailsClosed(
        { ...run, command: replaced(command, bin, '/gone/hermes-extensions/bin/hermes.js') },
        /\/gone\/hermes-extensions\/bin\/hermes\.js is missing \(hermes-extensions moved or was removed\)/,
      );
    },
  );

  it('hands the event to hermes unchanged and its answer back byte for byte', async () => {
    const { env } = userHome();
    const project = repository();
    for (const [form, command] of [
      ['project', await installedCommand(agent, env, project)],
      ['user', await installedCommand(agent, env)],
    ] as const) {
      if (form === 'project') binLink(project, bin);
      const run = { agent, command, shell: SHELLS[0] as string, project, env };
      // The guard's deny, exactly as hermes prints it when the agent runs it directly (each
      // call its own id: hermes decides one id once).
      const call = { ...event(agent, 'PreToolUse', project), tool_use_id: `${form}-wrapped` };
      const wrapped = await runAsAgent(run, JSON.stringify(call));
      const direct = await runHook(
        agent,
        env.HOME as string,
        { ...call, tool_use_id: `${form}-direct` },
        env,
      );
      expect(wrapped.code, wrapped.stderr).toBe(0);
      expect(JSON.parse(wrapped.stdout).hookSpecificOutput.permissionDecisionReason).toBe(
        'no secrets',
      );
      expect(wrapped.stdout, form).toBe(direct.stdout);
      // No decision stays no decision: nothing printed.
      const allowed = await runAsAgent(
        run,
        JSON.stringify({ ...call, tool_input: { command: 'ls' }, tool_use_id: `${form}-ls` }),
      );
      expect([allowed.code, allowed.stdout], allowed.stderr).toEqual([0, '']);
    }
    // What hermes reads is what the agent sent, and what it prints is what the agent reads.
    const echo = repository('echo');
    binLink(echo, script(join(tree(), 'hermes'), '#!/bin/sh\ncat\n'));
    const command = await installedCommand(agent, env, echo);
    const odd = `${JSON.stringify({ hook_event_name: 'PreToolUse', tool_input: { command: 'printf \'%s\\n\' "$HOME" `x` ü \\\\ \u2028' } })}\n\n`;
    for (const shell of SHELLS) {
      const answer = await runAsAgent({ agent, command, shell, project: echo, env }, odd);
      expect(answer.code).toBe(0);
      expect(answer.stdout).toBe(odd);
    }
  });

  it.each(SHELLS)(
    'reads the event name however the JSON is spaced, and never takes a prompt’s text for it (%s)',
    async (shell) => {
      const { env } = userHome();
      const project = repository();
      const run = {
        agent,
        command: await installedCommand(agent, env, project),
        shell,
        project,
        env,
      };
      const answer = async (stdin: string) => {
        const result = await runAsAgent(run, stdin);
        expect(result.code).toBe(0);
        return JSON.parse(result.stdout);
      };
      const denies = {
        hookSpecificOutput: expect.objectContaining({ permissionDecision: 'deny' }),
      };
      const pre = event(agent, 'PreToolUse', project);
      expect(await answer(JSON.stringify(pre, null, 2))).toEqual(denies);
      expect(
        await answer(JSON.stringify(pre).replace('"hook_event_name":', '"hook_event_name" :\t')),
      ).toEqual(denies);
      // Nothing to read the name from: it may have been a tool call.
      for (const stdin of ['', 'not json', '{"hook_event_name": 7}']) {
        const json = await answer(stdin);
        expect(json, stdin).toEqual(denies);
        expect(answerSchema(agent, 'PreToolUse').safeParse(json).success).toBe(true);
      }
      // A prompt that quotes a tool call's event is still a prompt.
      const prompt = {
        ...event(agent, 'UserPromptSubmit', project),
        prompt: '{"hook_event_name":"PreToolUse"}',
      };
      expect(await answer(JSON.stringify(prompt))).toMatchObject({ decision: 'block' });
      // A stop, spaced out, is never blocked.
      const stop = await answer(JSON.stringify(event(agent, 'Stop', project), null, 4));
      expect(stop).toEqual({ systemMessage: expect.stringContaining('is missing') });
    },
  );

  it('answers for hermes when it is killed, exits 2, or prints something and fails', async () => {
    const { env } = userHome();
    const cases = [
      { body: 'kill -9 $$', code: 137 },
      // bin/hermes.js exits 2 when the package is not built: at Stop, 2 would keep the agent going.
      { body: 'echo "hermes: the package is not built" >&2; exit 2', code: 2 },
      // Both agents ignore the output of an exit 1: half an answer is no answer.
      { body: 'printf "{\\"hookSpecificOutput\\":"; exit 1', code: 1 },
    ];
    // hermes reads the event itself: one that read it and failed leaves no name to read, and the
    // answer is the one for an event that may have been a tool call (it blocks nothing at Stop);
    // one that failed before reading it leaves it whole, and the answer is the event's own —
    // unless it was killed (it may have read part of it).
    for (const read of [true, false]) {
      for (const { body, code } of cases) {
        const project = repository();
        const stand = `#!/bin/sh\n${read ? 'cat >/dev/null\n' : ''}${body}\n`;
        binLink(project, script(join(tree(), 'hermes'), stand));
        const command = await installedCommand(agent, env, project);
        for (const shell of SHELLS) {
          const run = { agent, command, shell, project, env };
          const why = new RegExp(`hermes ended with exit code ${code} and no answer`);
          const pre = await runAsAgent(run, JSON.stringify(event(agent, 'PreToolUse', project)));
          expect([pre.code, JSON.parse(pre.stdout).hookSpecificOutput.permissionDecision]).toEqual([
            0,
            'deny',
          ]);
          expect(pre.stderr).toMatch(why);
          const stop = await runAsAgent(run, JSON.stringify(event(agent, 'Stop', project)));
          expect(stop.code).toBe(0);
          expect(stop.stderr).toMatch(why);
          if (read || code > 127)
            expect(JSON.parse(stop.stdout).hookSpecificOutput, `${code} ${shell}`).toEqual({
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: expect.stringMatching(why),
            });
          else
            expect(JSON.parse(stop.stdout)).toEqual({ systemMessage: expect.stringMatching(why) });
        }
      }
    }
  });

  it('never takes what a killed hermes left of a tool call for another event', async () => {
    // The model writes a tool call whose arguments end in an object that spells a Stop; were
    // hermes killed right after reading up to it, what is left on stdin would read as a Stop,
    // whose answer refuses nothing.
    const { env } = userHome();
    const project = repository();
    const call = {
      ...event(agent, 'PreToolUse', project),
      tool_input: { command: 'rm -rf src', x: { hook_event_name: 'Stop' } },
    };
    const text = JSON.stringify(call);
    const at = text.indexOf('{"hook_event_name":"Stop"');
    expect(at).toBeGreaterThan(0);
    binLink(
      project,
      script(join(tree(), 'hermes'), `#!/bin/sh\nhead -c ${at} >/dev/null\nkill -9 $$\n`),
    );
    const command = await installedCommand(agent, env, project);
    for (const shell of SHELLS) {
      const answer = await runAsAgent({ agent, command, shell, project, env }, text);
      expect(answer.code).toBe(0);
      expect(JSON.parse(answer.stdout).hookSpecificOutput?.permissionDecision, shell).toBe('deny');
    }
  });

  it.each(SHELLS)('hermes reads the event itself: no cat runs on the way (%s)', async (shell) => {
    // A PATH without cat: a command that buffered the event with it would hand hermes nothing.
    const { env } = userHome();
    const project = repository();
    const command = await installedCommand(agent, env);
    const noCat = tree();
    for (const tool of ['tr', 'git', 'env', 'sh', 'head'])
      symlinkSync(`/usr/bin/${tool}`, join(noCat, tool));
    const run = { agent, command, shell, project, env: { ...env, PATH: noCat } };
    const secret = await runAsAgent(run, JSON.stringify(event(agent, 'PreToolUse', project)));
    expect(secret.code, secret.stderr).toBe(0);
    expect(JSON.parse(secret.stdout).hookSpecificOutput.permissionDecisionReason).toBe(
      'no secrets',
    );
    const ls = await runAsAgent(
      run,
      JSON.stringify({
        ...event(agent, 'PreToolUse', project),
        tool_input: { command: 'ls' },
        tool_use_id: 'c2',
      }),
    );
    expect([ls.code, ls.stdout], ls.stderr).toEqual([0, '']);
    // And when hermes cannot start, the program still reads the event's name without it.
    await expectFailsClosed(
      { ...run, command: replaced(command, process.execPath, '/gone/bin/node') },
      /\/gone\/bin\/node is missing \(Node\.js moved or was removed\)/,
    );
  });

  // Codex starts a hook with the user's `$SHELL -lc`: the outer line must mean the same to each.
  for (const outer of ['/usr/bin/zsh', '/usr/bin/fish'])
    it.runIf(existsSync(outer))(
      `passes through ${outer} as it is, and fails closed there`,
      async () => {
        const { env } = userHome();
        const project = repository();
        const command = await installedCommand(agent, env);
        const through = (line: string, name: string, extra: Record<string, unknown> = {}) =>
          runProcess(outer, ['-c', line], {
            cwd: join(project, 'src/deep'),
            env: { ...env, CLAUDE_PROJECT_DIR: project },
            stdin: JSON.stringify({ ...event(agent, name, project), ...extra }),
          });
        const secret = await through(command, 'PreToolUse');
        expect(secret.code, secret.stderr).toBe(0);
        expect(JSON.parse(secret.stdout).hookSpecificOutput.permissionDecisionReason).toBe(
          'no secrets',
        );
        const gone = replaced(command, process.execPath, '/gone/bin/node');
        const pre = await through(gone, 'PreToolUse', { tool_use_id: 'c2' });
        expect(JSON.parse(pre.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
        expect(pre.stderr).toMatch(/\/gone\/bin\/node is missing/);
        const stop = await through(gone, 'Stop');
        expect([stop.code, JSON.parse(stop.stdout)]).toEqual([
          0,
          { systemMessage: expect.stringMatching(/\/gone\/bin\/node is missing/) },
        ]);
      },
    );

  it.runIf(agent === 'claude-code')(
    'stays valid JSON for a project whose path holds a quote or a backslash',
    async () => {
      const { env } = userHome();
      const project = repository('we"ird\\name');
      const run = {
        agent,
        command: await installedCommand(agent, env, project),
        shell: SHELLS[0] as string,
        project,
        env,
      };
      await expectFailsClosed(run, /we\?ird\?name\/node_modules\/\.bin\/hermes is missing/);
    },
  );
});
