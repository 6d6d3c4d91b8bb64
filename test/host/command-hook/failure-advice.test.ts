import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * transform_tool_result at Claude Code's `PostToolUseFailure`, through real hook processes
 * (failure-advice.ts): Claude Code shows the model the failed tool's error as it is and takes
 * `additionalContext` beside it, so only what a rewrite adds after the error reaches the model; a
 * rewrite of the error itself or a block is told to the user; nothing is ever refused (the call
 * ran already).
 */
const ERROR = "Exit code 1\ntouch: cannot touch 'src/y': Read-only file system";

function setup(body: string, extra = '') {
  const project = tree({ '.git/HEAD': '' });
  const events = join(project, 'events.jsonl');
  const home = tree({
    'extensions/results.ts': tsExtension('results', body, extra),
    'extensions/recorder.ts': tsExtension(
      'recorder',
      `hermes.observe('post_tool_call', (p) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';`,
    ),
  });
  const failure = async (error: unknown = ERROR) => {
    const answer = await runHook('claude-code', home, {
      session_id: 'failure-session',
      transcript_path: '/dev/null',
      cwd: project,
      permission_mode: 'default',
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'touch src/y' },
      tool_use_id: 'f1',
      error,
      is_interrupt: false,
    });
    expect(answer.code, answer.stderr).toBe(0);
    if (!answer.stdout) return { output: undefined, stderr: answer.stderr };
    const output = JSON.parse(answer.stdout) as Record<string, unknown>;
    const checked = answerSchema('claude-code', 'PostToolUseFailure').safeParse(output);
    expect(checked.error?.issues, answer.stdout).toBeUndefined();
    return { output, stderr: answer.stderr };
  };
  return { home, failure, observed: () => jsonLines(events) };
}

const context = (output: Record<string, unknown> | undefined) =>
  (output?.hookSpecificOutput as Record<string, unknown> | undefined)?.additionalContext;

describe.runIf(built)("transform_tool_result at Claude Code's PostToolUseFailure", () => {
  it('what a rewrite adds after the error goes to the model as context; observers get the error', async () => {
    const env = setup(
      `hermes.on('transform_tool_result', (e) => e.isError ? rewrite(e.result + '\\nE2E-HINT: write the plan first') : undefined);`,
      `import { rewrite } from 'hermes-extensions';`,
    );
    const got = await env.failure();
    expect(context(got.output)).toBe('E2E-HINT: write the plan first');
    const told = env.observed();
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ status: 'error', result: ERROR });
  });

  it('a rewrite of the error itself cannot be honoured: nothing to the model, the user is told', async () => {
    const env = setup(
      `hermes.on('transform_tool_result', (e) => typeof e.result === 'string' ? rewrite(e.result.replace('src/y', '[hidden]')) : undefined);`,
      `import { rewrite } from 'hermes-extensions';`,
    );
    const got = await env.failure();
    expect(context(got.output)).toBeUndefined();
    expect(String(got.output?.systemMessage)).toMatch(
      /results rewrote the error of a failed bash call, but Claude Code shows the model a failed tool's error as it is/,
    );
  });

  it('a block or a handler that throws is never a refusal: the user is told', async () => {
    for (const body of [
      `hermes.on('transform_tool_result', () => block('no errors for you'));`,
      `hermes.on('transform_tool_result', () => { throw new Error('boom'); });`,
    ]) {
      const got = await setup(body).failure();
      expect(context(got.output)).toBeUndefined();
      expect(got.output?.decision).toBeUndefined();
      expect(got.output?.continue).toBeUndefined();
      expect(String(got.output?.systemMessage)).toMatch(/refused the error of a failed bash call/);
    }
  });

  it('a config that does not load: the error alone, the reason to stderr, no refusal', async () => {
    const env = setup(`hermes.on('transform_tool_result', () => undefined);`);
    writeFileSync(join(env.home, 'config.yaml'), 'extensions: [\n');
    const got = await env.failure();
    expect(got.output).toBeUndefined();
    expect(got.stderr).toMatch(/transform_tool_result did not run on a failed tool's error/);
  });

  it('an event without an error text: nothing', async () => {
    const env = setup(
      `hermes.on('transform_tool_result', (e) => rewrite(String(e.result) + ' more'));`,
      `import { rewrite } from 'hermes-extensions';`,
    );
    expect((await env.failure(42)).output).toBeUndefined();
  });
});
