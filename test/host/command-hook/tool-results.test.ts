import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerSchema } from '../../support/agent-answers.js';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * transform_tool_result at Claude Code's `PostToolUse`, through real hook processes: the answer
 * is what the model reads in place of the tool's output (tool-result.ts), and Claude Code takes
 * `updatedToolOutput` for its own tools only in the tool's output shape (else it shows the
 * original: a redaction that leaks). So every answer is checked against the agent's strict schema
 * and, for Bash and Read, against the tool's output shape.
 */
const SECRET = 'sk-live-0123456789abcdef';

const bashShape = z.object({ stdout: z.string(), stderr: z.string(), interrupted: z.boolean() });
const readShape = z.object({
  type: z.literal('text'),
  file: z.object({
    filePath: z.string(),
    content: z.string(),
    numLines: z.number(),
    startLine: z.number(),
    totalLines: z.number(),
  }),
});

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
  const base = {
    session_id: 'results-session',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
  };
  const send = async (event: Record<string, unknown>) => {
    const answer = await runHook('claude-code', home, { ...base, ...event });
    expect(answer.code, answer.stderr).toBe(0);
    if (!answer.stdout) return { output: undefined, stderr: answer.stderr };
    const output = JSON.parse(answer.stdout) as Record<string, unknown>;
    const checked = answerSchema('claude-code', String(event.hook_event_name)).safeParse(output);
    expect(checked.error?.issues, answer.stdout).toBeUndefined();
    return { output, stderr: answer.stderr };
  };
  const bashResult = (stdout: string, id = 'c1') =>
    send({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'cat .env' },
      tool_response: {
        stdout,
        stderr: '',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
      tool_use_id: id,
    });
  const readResult = (content: string) =>
    send({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: join(project, '.env') },
      tool_response: {
        type: 'text',
        file: {
          filePath: join(project, '.env'),
          content,
          numLines: 1,
          startLine: 1,
          totalLines: 1,
        },
      },
      tool_use_id: 'r1',
    });
  return { send, bashResult, readResult, observed: () => jsonLines(events) };
}

const updated = (output: Record<string, unknown> | undefined) =>
  (output?.hookSpecificOutput as Record<string, unknown> | undefined)?.updatedToolOutput;

const REDACTOR = `hermes.on('transform_tool_result', (e) => {
  const redacted = mapStrings(e.result, (s) => s.replaceAll(${JSON.stringify(SECRET)}, '[redacted]'));
  return redacted === e.result ? undefined : rewrite(redacted);
});`;
const WITH_MAP = `import { mapStrings } from 'hermes-extensions/policy';\nimport { rewrite } from 'hermes-extensions';`;

describe.runIf(built)(
  'transform_tool_result at Claude Code PostToolUse',
  { timeout: 60_000 },
  () => {
    it('a Bash result holding a secret reaches the model redacted, in the Bash output shape', async () => {
      const hook = setup(REDACTOR, WITH_MAP);
      const { output } = await hook.bashResult(`KEY=${SECRET}\n`);
      const shown = bashShape.parse(updated(output));
      expect(shown.stdout).toBe('KEY=[redacted]\n');
      expect(JSON.stringify(output)).not.toContain(SECRET);
      // Observers get what the model got.
      const observed = hook.observed();
      expect(observed).toHaveLength(1);
      expect(JSON.stringify(observed[0])).not.toContain(SECRET);
      expect(JSON.stringify(observed[0])).toContain('[redacted]');
    });

    it('a Read result holding a secret reaches the model redacted, in the Read output shape', async () => {
      const hook = setup(REDACTOR, WITH_MAP);
      const { output } = await hook.readResult(`token: ${SECRET}`);
      expect(readShape.parse(updated(output)).file.content).toBe('token: [redacted]');
    });

    it('a result the handler passes gets no answer: Claude Code shows it as it is', async () => {
      const hook = setup(REDACTOR, WITH_MAP);
      expect((await hook.bashResult('nothing secret here')).output).toBeUndefined();
      expect(hook.observed()).toHaveLength(1);
    });

    it('a block puts the refusal in the Bash output shape', async () => {
      const hook = setup(
        `hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes('BEGIN PRIVATE KEY') ? block('private keys stay out of the model') : undefined);`,
      );
      const { output } = await hook.bashResult('-----BEGIN PRIVATE KEY-----\nabc');
      const shown = bashShape.parse(updated(output));
      expect(JSON.parse(shown.stdout)).toEqual({
        error: 'private keys stay out of the model',
        blocked_by_extension: true,
        extension: 'results',
      });
      expect(JSON.stringify(output)).not.toContain('abc');
    });

    it('a rewrite into another shape is refused in the tool shape, not ignored by Claude Code', async () => {
      const hook = setup(
        `hermes.on('transform_tool_result', (e) => rewrite('[the output was removed]'));`,
        `import { rewrite } from 'hermes-extensions';`,
      );
      const { output } = await hook.bashResult(`KEY=${SECRET}`);
      const shown = bashShape.parse(updated(output));
      expect(shown.stdout).toContain('results rewrote it into a form Bash');
      expect(JSON.stringify(output)).not.toContain(SECRET);
    });

    it('fails closed: a handler that throws hides the result', async () => {
      const hook = setup(
        `hermes.on('transform_tool_result', () => { throw new Error('rules file missing'); });`,
      );
      const { output } = await hook.readResult(`token: ${SECRET}`);
      const shown = readShape.parse(updated(output));
      expect(shown.file.content).toContain('rules file missing');
      expect(JSON.stringify(output)).not.toContain(SECRET);
    });

    it('a tool whose refusal shape is unknown gets the refusal and the turn stopped', async () => {
      const hook = setup(`hermes.on('transform_tool_result', () => block('no'));`);
      const { output } = await hook.send({
        hook_event_name: 'PostToolUse',
        tool_name: 'Glob',
        tool_input: { pattern: '**' },
        tool_response: {
          filenames: [`/x/${SECRET}`],
          durationMs: 1,
          numFiles: 1,
          truncated: false,
        },
        tool_use_id: 'g1',
      });
      expect(output?.continue).toBe(false);
      expect(JSON.stringify(output)).not.toContain(SECRET);
    });

    it('handlers for other tools leave the result alone', async () => {
      const hook = setup(
        `hermes.on('transform_tool_result', () => block('no'), { tools: ['read'] });`,
      );
      expect((await hook.bashResult(`KEY=${SECRET}`)).output).toBeUndefined();
    });

    it('runs in the turn state: a call the extension saw at PreToolUse is known at its result', async () => {
      const hook = setup(
        `hermes.on('intercept_tool_call', (e) => { if (String(e.toolArgs.command).includes('.env')) e.state.envRead = true; });
       hermes.on('transform_tool_result', (e) => e.state.envRead === true ? block('the .env file was read in this turn') : undefined);`,
      );
      await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'show the env' });
      expect((await hook.bashResult('harmless', 'c0')).output).toBeUndefined();
      await hook.send({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'cat .env' },
        tool_use_id: 'c1',
      });
      const { output } = await hook.bashResult(`KEY=${SECRET}`, 'c1');
      expect(bashShape.parse(updated(output)).stdout).toContain(
        'the .env file was read in this turn',
      );
    });
  },
);
