import { createRuntime, defineExtension } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import {
  runShell,
  sandbox,
  sandboxMissingTest,
  useSandboxSettingsHome,
} from '../../test/support/sandbox.js';
import workflowGuard from './index.js';

useSandboxSettingsHome();

/**
 * A command the guard cannot read runs in the OS sandbox before a plan, where a write outside
 * `allowed_paths` fails with the kernel's `Read-only file system`; the model reads that, then the
 * guard's advice (extensions/workflow-guard/README.md, The sandbox). Run for real: the call as the
 * guard made it, its output as the shell gave it, then the result through the chain.
 */
async function modelReads(command: string, shape: 'text' | 'claude' = 'text') {
  const root = tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '' });
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: {},
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, async (turn) => {
    const call = await turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } });
    if (call.blocked)
      throw new Error(`expected the call to run, and it was refused: ${call.message}`);
    const ran = runShell(String(call.value.command), root);
    const output = `${ran.stdout}${ran.stderr}`;
    const result =
      shape === 'text'
        ? output
        : { stdout: output, stderr: '', interrupted: false, isImage: false };
    const outcome = await turn.transformToolResult({
      toolName: 'bash',
      toolArgs: call.value,
      result,
      isError: ran.code !== 0,
    });
    if (outcome.blocked) throw new Error(`the result was refused: ${outcome.message}`);
    return { sandboxed: call.changed, output, result, read: outcome.value };
  });
}

const ADVICE = /workflow-guard: the OS sandbox refused this write/;

describe.runIf(sandbox.available)(
  'a write the sandbox refused, told to the model',
  { timeout: 60_000 },
  () => {
    it('touch src/y: the output ends with what is writable and that a plan unlocks the rest', async () => {
      const got = await modelReads('touch src/y');
      expect(got.sandboxed).toBe(true);
      expect(got.output).toMatch(/Read-only file system/);
      const read = String(got.read);
      expect(read.startsWith(got.output)).toBe(true);
      const last = read.trimEnd().split('\n').at(-1) ?? '';
      expect(last).toMatch(ADVICE);
      expect(last).toContain('plans/');
      expect(last).toContain('plans/active/plan.md');
    });

    it("node's EROFS, in Claude Code's {stdout, stderr} form: the advice ends stdout, the form kept", async () => {
      const got = await modelReads(`node -e "require('fs').writeFileSync('src/y', '1')"`, 'claude');
      expect(got.sandboxed).toBe(true);
      const read = got.read as Record<string, unknown>;
      expect(Object.keys(read).sort()).toEqual(['interrupted', 'isImage', 'stderr', 'stdout']);
      expect(String(read.stdout).trimEnd().split('\n').at(-1)).toMatch(ADVICE);
    });

    it('a sandboxed command that fails for another reason gets no advice', async () => {
      const got = await modelReads('eval "ls no-such-file"');
      expect(got.sandboxed).toBe(true);
      expect(got.output).toMatch(/No such file or directory/);
      expect(got.read).toBe(got.result);
    });

    it('a write to allowed_paths that succeeds gets no advice', async () => {
      const got = await modelReads('eval "touch plans/ok && echo done"');
      expect(got.sandboxed).toBe(true);
      expect(got.read).toBe('done\n');
    });
  },
);

describe.runIf(sandbox.available)('advice that cannot be made', { timeout: 60_000 }, () => {
  it("leaves the tool's own result (never a refusal in its place)", async () => {
    const root = tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '' });
    let broken = false;
    const denying = defineExtension({
      name: 'denying',
      setup(hermes) {
        hermes.denySandboxRead(() => {
          if (broken) throw new Error('the secret list is gone');
          return [];
        });
      },
    });
    const runtime = await createRuntime({
      extensions: [workflowGuard, denying],
      cwd: root,
      config: {},
      logger: memoryLogger(),
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await turn.interceptToolCall({
        toolName: 'bash',
        toolArgs: { command: 'touch src/y' },
      });
      if (call.blocked) throw new Error(call.message);
      broken = true;
      const ran = runShell(String(call.value.command), root);
      return turn.transformToolResult({
        toolName: 'bash',
        toolArgs: call.value,
        result: ran.stderr,
      });
    });
    expect(outcome.blocked).toBe(false);
    expect(outcome.blocked ? undefined : outcome.value).toMatch(/Read-only file system\n$/);
  });
});

describe('a result that only says read-only', () => {
  it('of a call the guard did not sandbox gets no advice', async () => {
    const root = tree({ 'notes.txt': 'touch: Read-only file system\n', 'plans/.keep': '' });
    const runtime = await createRuntime({
      extensions: [workflowGuard],
      cwd: root,
      config: {},
      logger: memoryLogger(),
    });
    const result = 'touch: cannot touch src/y: Read-only file system\n';
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.transformToolResult({
        toolName: 'bash',
        toolArgs: { command: 'cat notes.txt' },
        result,
      }),
    );
    expect(outcome.blocked).toBe(false);
    expect(outcome.blocked ? undefined : outcome.value).toBe(result);
  });
});

sandboxMissingTest();
