import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runBin, runHook } from '../../support/run-bin.js';

const hook = (home: string, event: unknown) => runHook('codex', home, event);

// What Codex's hook output parser accepts (Codex 0.169): every object is closed — an
// unknown field, `ask`, `allow` without `updatedInput` or a deny without a reason make Codex drop
// the whole answer and run the call (fail open), so the answers are held to exactly this.
const preToolUseAnswer = z
  .strictObject({
    hookSpecificOutput: z.strictObject({
      hookEventName: z.literal('PreToolUse'),
      permissionDecision: z.enum(['allow', 'deny']),
      permissionDecisionReason: z.string().min(1).optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    }),
  })
  .refine(({ hookSpecificOutput: o }) =>
    o.permissionDecision === 'deny'
      ? o.permissionDecisionReason !== undefined
      : o.updatedInput !== undefined,
  );
const promptAnswer = z.strictObject({
  decision: z.literal('block').optional(),
  reason: z.string().min(1).optional(),
  hookSpecificOutput: z
    .strictObject({
      hookEventName: z.literal('UserPromptSubmit'),
      additionalContext: z.string(),
    })
    .optional(),
});

function setup(extra: Record<string, string> = {}) {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
    ...extra,
  });
  const project = tree({ '.git/HEAD': '' });
  // The fields Codex 0.169 sends with every event (captured from the real binary).
  const base = (turn: string) => ({
    session_id: '01a1fff9-fe97-7dc3-b90d-bb9772494c69',
    turn_id: turn,
    transcript_path: null,
    cwd: project,
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
  });
  // Each call has its own id, as Codex gives it: one id is decided once.
  let calls = 0;
  const bash = (turn: string, command: string, id = `call_bash_${calls++}`) => ({
    ...base(turn),
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
  const patch = (turn: string, file: string) => ({
    ...base(turn),
    hook_event_name: 'PreToolUse',
    tool_name: 'apply_patch',
    tool_input: { command: `*** Begin Patch\n*** Add File: ${file}\n+hello\n*** End Patch\n` },
    tool_use_id: `call_patch_${calls++}`,
  });
  return { home, project, base, bash, patch };
}

const turnFile = (home: string) =>
  join(home, 'turns', `${encodeURIComponent('01a1fff9-fe97-7dc3-b90d-bb9772494c69')}.json`);

describe.runIf(built)('hermes hook codex', () => {
  it('denies shell and apply_patch edits without a plan and allows them with one (workflow-guard, default config)', async () => {
    const { home, project, base, bash, patch } = setup();
    const prompt = await hook(home, {
      ...base('t1'),
      hook_event_name: 'UserPromptSubmit',
      prompt: 'fix the login bug',
    });
    expect(prompt.code).toBe(0);
    expect(
      promptAnswer.parse(JSON.parse(prompt.stdout)).hookSpecificOutput?.additionalContext,
    ).toMatch(
      // The rewrite, then workflow-guard's reminder (before_llm_call) for the first request.
      /^Hermes extensions rewrote this request; treat it as: \/start-feature fix the login bug\n\nNo plan exists yet/,
    );

    for (const call of [bash('t1', 'echo x > src/login.ts'), patch('t1', 'src/login.ts')]) {
      const denied = await hook(home, call);
      expect(denied.code).toBe(0);
      const output = preToolUseAnswer.parse(JSON.parse(denied.stdout)).hookSpecificOutput;
      expect(output.permissionDecision).toBe('deny');
      expect(output.permissionDecisionReason).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    // Writing the plan itself is allowed: no output, the call goes on.
    expect(await hook(home, patch('t1', 'plans/active/plan.md'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    write(project, { 'plans/active/plan.md': '# Plan\n1. fix\n' });
    expect((await hook(home, patch('t1', 'src/login.ts'))).stdout).toBe('');
    expect((await hook(home, bash('t1', 'echo x > src/login.ts'))).stdout).toBe('');
    // Stop ends the turn and prints nothing: Codex refuses hookSpecificOutput on Stop.
    const stop = await hook(home, {
      ...base('t1'),
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'done',
    });
    expect(stop).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(turnFile(home))).toBe(false);
  });

  // Codex runs this very hook with `$SHELL -lc`: a login shell's start-up file that ended in
  // `exit 0` would answer every later hook with nothing, which Codex takes for "allow".
  it("denies an apply_patch to the user's login shell start-up files, with a plan or without", async () => {
    const { home, project, patch } = setup();
    const user = tree({ '.profile': 'export PATH\n' });
    write(project, { 'plans/active/plan.md': '# Plan\n1. fix\n' });
    for (const file of ['.profile', '.bash_profile', '.zshenv', '.config/fish/conf.d/x.fish']) {
      const denied = await runHook('codex', home, patch('t1', join(user, file)), { HOME: user });
      expect(denied.code, denied.stderr).toBe(0);
      const output = preToolUseAnswer.parse(JSON.parse(denied.stdout)).hookSpecificOutput;
      expect(output.permissionDecision).toBe('deny');
      expect(output.permissionDecisionReason).toContain(join(user, file));
      expect(output.permissionDecisionReason).toMatch(
        /login shell's start-up file|fish's start-up/,
      );
    }
    expect(readFileSync(join(user, '.profile'), 'utf8')).toBe('export PATH\n');
  });

  it('answers a rewrite with allow and updatedInput in Codex argument names', async () => {
    const { home, bash, patch } = setup({
      'extensions/safer.ts': tsExtension(
        'safer',
        `hermes.on('intercept_tool_call', (e) => {
          if (e.toolName === 'bash' && String(e.toolArgs.command).startsWith('grep -r '))
            return { action: 'rewrite', value: { command: String(e.toolArgs.command).replace('grep -r ', 'grep -rn ') } };
          if (e.toolName === 'patch' && String(e.toolArgs.patch).includes('notes.tmp'))
            return { action: 'rewrite', value: { patch: String(e.toolArgs.patch).replace('notes.tmp', 'notes.md') } };
          return undefined;
        });`,
      ),
    });
    const shell = preToolUseAnswer.parse(
      JSON.parse((await hook(home, bash('t1', 'grep -r todo plans'))).stdout),
    );
    expect(shell.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: { command: 'grep -rn todo plans' },
    });
    const patched = preToolUseAnswer.parse(
      JSON.parse((await hook(home, patch('t1', 'plans/notes.tmp'))).stdout),
    );
    expect(patched.hookSpecificOutput.updatedInput).toEqual({
      command: '*** Begin Patch\n*** Add File: plans/notes.md\n+hello\n*** End Patch\n',
    });
  });

  it("keeps the turn's state by Codex's turn_id: a new id is a new turn even without Stop", async () => {
    const { home, bash } = setup({
      'extensions/counter.ts': tsExtension(
        'counter',
        `hermes.on('intercept_tool_call', (e) => { e.state.calls = ((e.state.calls as number) ?? 0) + 1; });`,
      ),
    });
    const answers = await Promise.all(
      [1, 2, 3, 4].map((i) => hook(home, bash('t1', 'ls plans', `call_${i}`))),
    );
    expect(answers.map((a) => a.code)).toEqual([0, 0, 0, 0]);
    const stored = () => JSON.parse(readFileSync(turnFile(home), 'utf8'));
    expect(stored()).toMatchObject({ turnId: 't1', state: { calls: 4 } });
    // Turn t1 was interrupted (no Stop); the first call of t2 starts from a clean state.
    await hook(home, bash('t2', 'ls plans'));
    expect(stored()).toMatchObject({ turnId: 't2', state: { calls: 1 } });
  });

  it('gives a blocked prompt a reason, as Codex requires', async () => {
    const { home, base } = setup({
      'extensions/quiet.ts': tsExtension(
        'quiet',
        `hermes.on('transform_user_input', () => block('  '));`,
      ),
    });
    const answer = await hook(home, {
      ...base('t1'),
      hook_event_name: 'UserPromptSubmit',
      prompt: 'anything',
    });
    expect(promptAnswer.parse(JSON.parse(answer.stdout))).toEqual({
      decision: 'block',
      reason: 'blocked by the quiet extension',
    });
  });

  it('refuses what it cannot read (it may be a tool call), in the shape Codex accepts, never exit 1', async () => {
    const { home, base } = setup();
    for (const input of [
      'not json',
      JSON.stringify({ ...base('t1'), hook_event_name: 'PreToolUse', tool_name: 'Bash' }),
    ]) {
      const answer = await hook(home, input);
      expect(answer.code, input).toBe(0);
      expect(answer.stderr, input).toMatch(/^hermes hook codex: /);
      const output = preToolUseAnswer.parse(JSON.parse(answer.stdout)).hookSpecificOutput;
      expect(output.permissionDecision).toBe('deny');
      expect(output.permissionDecisionReason).toMatch(/^Hermes could not check this call/);
    }
  });

  it('installs itself into Codex hooks.json, keeping what is there, once', async () => {
    const codexHome = tree({
      'hooks.json': JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] }],
        },
      }),
    });
    const install = (...args: string[]) =>
      runBin(['hook', 'install', 'codex', ...args], {
        CODEX_HOME: codexHome,
        HERMES_HOME: join(codexHome, 'hermes-home'),
      });
    const first = await install();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /Added the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop to/,
    );
    expect(first.stdout).toMatch(/\/hooks/);
    // Installed already: the file is left exactly as the user keeps it.
    const compact = JSON.stringify(JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')));
    write(codexHome, { 'hooks.json': compact });
    expect((await install()).stdout).toMatch(/nothing changed/);
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toBe(compact);
    const file = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'));
    expect(Object.keys(file)).toEqual(['hooks']);
    expect(file.hooks.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] },
      // No matcher: every tool, MCP tools included, in every Codex version ("*" was once an
      // invalid regular expression there, and the hook was skipped).
      {
        hooks: [
          {
            type: 'command',
            command: expect.stringMatching(/hook-commands\/codex PreToolUse$/),
            timeout: 30,
          },
        ],
      },
    ]);
    expect(file.hooks.SessionEnd).toBeUndefined();

    // A hook installed under "*" by an earlier version is moved to the entry without a matcher.
    const ours = file.hooks.PreToolUse[1].hooks[0];
    write(codexHome, {
      'hooks.json': JSON.stringify({
        hooks: { ...file.hooks, PreToolUse: [{ matcher: '*', hooks: [ours] }] },
      }),
    });
    expect((await install()).stdout).toMatch(/Updated the hermes hook's command for PreToolUse/);
    expect(
      JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).hooks.PreToolUse,
    ).toEqual([{ hooks: [ours] }]);

    const project = tree({ '.git/HEAD': '' });
    expect((await install('--project', '--cwd', project)).code).toBe(0);
    expect(existsSync(join(project, '.codex/hooks.json'))).toBe(true);

    write(codexHome, { 'hooks.json': '{ not json' });
    const broken = await install();
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/hooks\.json is not valid JSON/);
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toBe('{ not json');
  });
});
