import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { built, guardedProject, hookHomes, runHook } from '../../support/run-bin.js';
import { runShellAsync, sandbox, sandboxMissingTest } from '../../support/sandbox.js';

/**
 * Before a plan, workflow-guard runs a shell command it cannot read in the OS sandbox; a write
 * there fails with `Read-only file system`, and the result the model reads ends with the guard's
 * advice (extensions/workflow-guard/README.md, The sandbox). Through the real hook process: the
 * `PreToolUse` answer's command run as Claude Code runs it, then its output at `PostToolUse`.
 */
function setup() {
  const { user, home } = hookHomes();
  const project = guardedProject();
  return { user, home, project };
}

let calls = 0;

async function send(env: ReturnType<typeof setup>, event: Record<string, unknown>) {
  const answer = await runHook(
    'claude-code',
    env.home,
    {
      session_id: 'sandbox-advice',
      transcript_path: '/dev/null',
      cwd: env.project,
      permission_mode: 'default',
      ...event,
    },
    { HOME: env.user },
  );
  expect(answer.code, answer.stderr).toBe(0);
  if (answer.stdout === '') return undefined;
  const output = JSON.parse(answer.stdout) as Record<string, unknown>;
  const checked = answerSchema('claude-code', String(event.hook_event_name)).safeParse(output);
  expect(checked.error?.issues, answer.stdout).toBeUndefined();
  return output.hookSpecificOutput as Record<string, unknown> | undefined;
}

/** The call through `PreToolUse`, run as Claude Code runs it, its output through `PostToolUse`. */
async function modelReads(command: string) {
  const env = setup();
  const id = `call_${calls++}`;
  const before = await send(env, {
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
  const wrapped = before?.updatedInput as { command?: string } | undefined;
  expect(wrapped?.command, JSON.stringify(before)).toContain(' --unshare-net ');
  const ran = await runShellAsync(String(wrapped?.command), env.project, {
    ...process.env,
    HOME: env.user,
    HERMES_HOME: env.home,
  });
  const output = `${ran.stdout}${ran.stderr}`;
  const after = await send(env, {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: wrapped,
    tool_response: { stdout: output, stderr: '', interrupted: false, isImage: false },
    tool_use_id: id,
  });
  return { output, updated: after?.updatedToolOutput as Record<string, unknown> | undefined };
}

/**
 * The same call as Claude Code reports it when the command exits with another status than 0: at
 * `PostToolUseFailure`, with its `error` text (`Exit code N`, then the output, as Claude Code
 * 2.1.330 words it), which no hook can replace: the advice comes as `additionalContext`.
 */
async function modelReadsAfterFailure(command: string, wrap = true) {
  const env = setup();
  const id = `call_${calls++}`;
  const before = await send(env, {
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
  const updated = before?.updatedInput as { command?: string } | undefined;
  const input = wrap ? updated : { command };
  if (wrap) expect(updated?.command, JSON.stringify(before)).toContain(' --unshare-net ');
  const ran = await runShellAsync(String(input?.command), env.project, {
    ...process.env,
    HOME: env.user,
    HERMES_HOME: env.home,
  });
  expect(ran.code).not.toBe(0);
  const output = `${ran.stderr}${ran.stdout}`.trimEnd();
  const after = await send(env, {
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: input,
    tool_use_id: id,
    error: `Exit code ${ran.code}\n${output}`,
    is_interrupt: false,
  });
  return { output, context: after?.additionalContext as string | undefined, after };
}

describe.runIf(built && sandbox.available)(
  "the sandbox's advice at Claude Code's PostToolUseFailure",
  { timeout: 120_000 },
  () => {
    it('touch src/y before a plan exits 1: the advice comes as context beside the error', async () => {
      const got = await modelReadsAfterFailure('touch src/y');
      expect(got.output).toMatch(/Read-only file system/);
      expect(got.context).toMatch(/^workflow-guard: the OS sandbox refused this write/);
      expect(got.context).toContain('plans/active/plan.md');
      expect(got.context).toContain('plans/');
      // The advice only: the error itself the model reads already.
      expect(got.context).not.toContain('Read-only file system');
    });

    it('a sandboxed command that fails for another reason: nothing added', async () => {
      const got = await modelReadsAfterFailure('eval "ls no-such-file"');
      expect(got.output).toMatch(/No such file or directory/);
      expect(got.after).toBeUndefined();
    });

    it('a failure of a command the guard did not wrap, read-only as it says: nothing added', async () => {
      const got = await modelReadsAfterFailure(
        'echo "touch: cannot touch \'src/y\': Read-only file system" >&2; exit 1',
        false,
      );
      expect(got.output).toMatch(/Read-only file system/);
      expect(got.after).toBeUndefined();
    });
  },
);

describe.runIf(built && sandbox.available)(
  "the sandbox's advice through `hermes hook claude-code`",
  { timeout: 120_000 },
  () => {
    it('touch src/y before a plan: the output ends with what is writable and the plan', async () => {
      const got = await modelReads('touch src/y');
      expect(got.output).toMatch(/Read-only file system/);
      expect(Object.keys(got.updated ?? {}).sort()).toEqual([
        'interrupted',
        'isImage',
        'stderr',
        'stdout',
      ]);
      const stdout = String(got.updated?.stdout);
      expect(stdout.startsWith(got.output)).toBe(true);
      const last = stdout.trimEnd().split('\n').at(-1) ?? '';
      expect(last).toMatch(/^workflow-guard: the OS sandbox refused this write/);
      expect(last).toContain('plans/active/plan.md');
      expect(last).toContain('plans/');
    });

    it('a sandboxed command that fails for another reason: the output as it was', async () => {
      const got = await modelReads('eval "ls no-such-file"');
      expect(got.output).toMatch(/No such file or directory/);
      expect(got.updated).toBeUndefined();
    });
  },
);

sandboxMissingTest();
