import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { ask, block, createRuntime, runConversation, subagentTool } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import { ext } from '../../test/support/helpers.js';
import auditLog from './index.js';

const guard = ext('guard', (h) =>
  h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' }),
);

/** Lines of a file once it has at least `count` of them (the log is written off the hot path). */
async function lines(file: string, count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(file)) {
      const read = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
      if (read.length >= count) return read.map((line) => JSON.parse(line));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${file} never reached ${count} lines`);
}

async function turn(project: string, config: Record<string, unknown> = {}, calls = 1) {
  const runtime = await createRuntime({
    extensions: [guard, auditLog],
    cwd: project,
    config: { extensions: { 'audit-log': config } },
    logger: memoryLogger(),
  });
  for (let i = 0; i < calls; i++) {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          toolCall('read', { path: 'a' }, `r${i}`),
          toolCall('write', { path: 'b' }, `w${i}`),
        ],
      },
      { content: 'done' },
    ]);
    await runConversation({
      runtime,
      sessionId: `s${i}`,
      userMessage: 'go',
      systemPrompt: '',
      model,
      tools: { read: { execute: () => 'contents' }, write: { execute: () => 'written' } },
    });
  }
}

describe('audit-log', () => {
  it('writes every hook decision and tool outcome as one JSON line, in order', async () => {
    const project = tree();
    await turn(project);
    const log = await lines(join(project, '.hermes/audit/audit.jsonl'), 3);
    expect(log.map((l) => [l.event, l.tool_name, l.status ?? l.blocked_by])).toEqual([
      ['post_tool_call', 'read', 'ok'],
      ['hook_decision', 'write', 'guard'],
      ['post_tool_call', 'write', 'blocked'],
    ]);
    for (const line of log)
      expect(line).toMatchObject({
        at: expect.any(String),
        session_id: 's0',
        telemetry_schema_version: 'hermes.observer.v1',
      });
  });

  it('rotates by size and keeps the configured number of old files', async () => {
    const project = tree();
    await turn(project, { path: 'audit.jsonl', max_bytes: 1200, keep: 2 }, 8);
    const file = join(project, 'audit.jsonl');
    // The last event of the last turn is written last.
    for (let i = 0; i < 200 && !textOf(file).includes('"tool_call_id":"w7","status"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await lines(`${file}.2`, 1);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(existsSync(`${file}.3`)).toBe(false);
    for (const f of [file, `${file}.1`, `${file}.2`]) {
      if (existsSync(f)) expect(readFileSync(f).length).toBeLessThanOrEqual(1200);
    }
    const newest = await lines(file, 1);
    expect(newest.at(-1)).toMatchObject({
      session_id: 's7',
      event: 'post_tool_call',
      tool_call_id: 'w7',
    });
  });

  it('writes an ask put to a person and its answer, between the decision and the outcome', async () => {
    const project = tree();
    const runtime = await createRuntime({
      extensions: [
        ext('careful', (h) => h.on('intercept_tool_call', () => ask('deletes files'))),
        auditLog,
      ],
      cwd: project,
      logger: memoryLogger(),
    });
    await runConversation({
      runtime,
      sessionId: 's0',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('bash', { command: 'rm a' }, 'c1')] },
        { content: 'done' },
      ]),
      tools: { bash: { execute: () => 'removed' } },
      approve: () => false,
    });
    await runtime.close();
    const log = await lines(join(project, '.hermes/audit/audit.jsonl'), 4);
    expect(log.map((l) => [l.event, l.tool_call_id])).toEqual([
      ['hook_decision', 'c1'],
      ['pre_approval_request', 'c1'],
      ['post_approval_response', 'c1'],
      ['post_tool_call', 'c1'],
    ]);
    expect(log[1]).toMatchObject({ description: 'deletes files', pattern_key: 'careful' });
    expect(log[2]).toMatchObject({ choice: 'deny', granted: false });
  });

  it('writes a subagent started and stopped, around the calls it made, which name it', async () => {
    const project = tree();
    const runtime = await createRuntime({
      extensions: [
        ext('careful', (h) =>
          h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' }),
        ),
        auditLog,
      ],
      cwd: project,
      logger: memoryLogger(),
    });
    await runConversation({
      runtime,
      sessionId: 's0',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('delegate', { task: 'write it' }, 'd1')] },
        { content: 'done' },
      ]),
      tools: {
        delegate: subagentTool({
          type: 'worker',
          execute: async (_args, { runSubagent }) =>
            (
              await runSubagent({
                id: 'worker-1',
                prompt: 'write it',
                systemPrompt: '',
                model: scriptedModel([
                  { content: '', toolCalls: [toolCall('write', { path: 'a' }, 'w1')] },
                  { content: 'could not' },
                ]),
                tools: { write: { execute: () => 'wrote' } },
              })
            ).finalResponse,
        }),
      },
    });
    await runtime.close();
    const log = await lines(join(project, '.hermes/audit/audit.jsonl'), 5);
    expect(log.map((l) => [l.event, l.child_subagent_id ?? l.tool_call_id, l.agent_id])).toEqual([
      ['subagent_start', 'worker-1', undefined],
      ['hook_decision', 'w1', 'worker-1'],
      ['post_tool_call', 'w1', 'worker-1'],
      ['subagent_stop', 'worker-1', undefined],
      ['post_tool_call', 'd1', undefined],
    ]);
    expect(log[0]).toMatchObject({ child_role: 'worker', child_goal: 'write it' });
    expect(log[3]).toMatchObject({ status: 'completed', child_summary: 'could not' });
  });

  it('writes through no symbolic link or FIFO a cloned repository commits at the log path: it warns instead', async () => {
    const outside = tree({ bashrc: 'mine\n' });
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    for (const target of [join(outside, 'bashrc'), join(outside, 'pipe'), 'fifo']) {
      const project = tree();
      mkdirSync(join(project, '.hermes/audit'), { recursive: true });
      const path = join(project, '.hermes/audit/audit.jsonl');
      if (target === 'fifo') execFileSync('mkfifo', [path]);
      else symlinkSync(target, path);
      const logger = memoryLogger();
      const runtime = await createRuntime({ extensions: [guard, auditLog], cwd: project, logger });
      await runConversation({
        runtime,
        sessionId: 's0',
        userMessage: 'go',
        systemPrompt: '',
        model: scriptedModel([
          { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
          { content: 'done' },
        ]),
        tools: { write: { execute: () => 'written' } },
      });
      // Ends: a FIFO opened to write would wait for a reader forever.
      await runtime.close();
      expect(readFileSync(join(outside, 'bashrc'), 'utf8')).toBe('mine\n');
      const warned = logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
      expect(warned.join('\n')).toMatch(
        /cannot write the audit log .*(symbolic link|not a regular file)/,
      );
    }
  });

  it('writes through no symbolic link a cloned repository commits at a folder above the log: it warns instead', async () => {
    for (const linked of ['.hermes', '.hermes/audit']) {
      // `.hermes` -> an empty folder (where `mkdir -p` would make `audit/`), or `.hermes/audit`
      // -> a folder that has one file.
      const outside = linked === '.hermes' ? tree() : tree({ keep: '' });
      const project = tree();
      mkdirSync(join(project, '.hermes'), { recursive: true });
      if (linked === '.hermes') rmdirSync(join(project, '.hermes'));
      symlinkSync(outside, join(project, linked));
      const logger = memoryLogger();
      const runtime = await createRuntime({ extensions: [guard, auditLog], cwd: project, logger });
      await runConversation({
        runtime,
        sessionId: 's0',
        userMessage: 'go',
        systemPrompt: '',
        model: scriptedModel([
          { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
          { content: 'done' },
        ]),
        tools: { write: { execute: () => 'written' } },
      });
      await runtime.close();
      expect(readdirSync(outside)).toEqual(linked === '.hermes' ? [] : ['keep']);
      const warned = logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(join(project, '.hermes/audit/audit.jsonl'));
      expect(warned[0]).toContain(`${join(project, linked)} is a symbolic link`);
    }
  });

  it('writes again the lines a failed write kept, once the trail can take them', async () => {
    const project = tree();
    mkdirSync(join(project, '.hermes'));
    // Refused while `.hermes/audit` is a link (to nowhere), taken once it is a real folder.
    symlinkSync(join(project, 'nowhere'), join(project, '.hermes/audit'));
    const logger = memoryLogger();
    const runtime = await createRuntime({ extensions: [guard, auditLog], cwd: project, logger });
    await runConversation({
      runtime,
      sessionId: 's0',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
        { content: 'done' },
      ]),
      tools: { write: { execute: () => 'written' } },
    });
    for (let i = 0; i < 200 && logger.lines.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(/cannot write the audit log/);
    unlinkSync(join(project, '.hermes/audit'));
    mkdirSync(join(project, '.hermes/audit'));
    // No new line comes: the kept one is written all the same.
    const log = await lines(join(project, '.hermes/audit/audit.jsonl'), 1);
    expect(log[0]).toMatchObject({ event: 'hook_decision', blocked: true });
    await runtime.close();
    expect(existsSync(join(project, '.hermes/audit-log.unwritten.jsonl'))).toBe(false);
  });

  it('keeps apart, and reports, the lines the trail still could not take when it closes', async () => {
    const project = tree();
    mkdirSync(join(project, '.hermes/audit'), { recursive: true });
    execFileSync('mkfifo', [join(project, '.hermes/audit/audit.jsonl')]);
    const logger = memoryLogger();
    const runtime = await createRuntime({ extensions: [guard, auditLog], cwd: project, logger });
    await runConversation({
      runtime,
      sessionId: 's0',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
        { content: 'done' },
      ]),
      tools: { write: { execute: () => 'written' } },
    });
    await runtime.close();
    const kept = await lines(join(project, '.hermes/audit-log.unwritten.jsonl'), 2);
    const unwritten = (event: string) => ({
      trail: join(project, '.hermes/audit/audit.jsonl'),
      why: expect.stringMatching(/not a regular file/),
      line: expect.objectContaining({ event }),
    });
    expect(kept).toEqual([unwritten('hook_decision'), unwritten('post_tool_call')]);
    const errors = logger.lines.filter((l) => l.level === 'error').map((l) => l.message);
    expect(errors).toEqual([
      expect.stringMatching(
        /^\[hermes:audit-log\] 2 audit line\(s\) could not be written to .*; kept in .*doctor/,
      ),
    ]);
  });

  it('keeps apart at once, past a thousand, the oldest lines a failing trail holds', async () => {
    const project = tree();
    mkdirSync(join(project, '.hermes/audit'), { recursive: true });
    execFileSync('mkfifo', [join(project, '.hermes/audit/audit.jsonl')]);
    const runtime = await createRuntime({
      extensions: [auditLog],
      cwd: project,
      logger: memoryLogger(),
    });
    for (let seq = 0; seq < 1_005; seq++) runtime.emit('hook_decision', { seq });
    const record = join(project, '.hermes/audit-log.unwritten.jsonl');
    const early = await lines(record, 5);
    expect(early.map((kept) => (kept.line as { seq: number }).seq)).toEqual([0, 1, 2, 3, 4]);
    await runtime.close();
    const all = await lines(record, 1_005);
    expect(all.map((kept) => (kept.line as { seq: number }).seq)).toEqual(
      Array.from({ length: 1_005 }, (_, seq) => seq),
    );
  });

  it('follows a link above a log path named outside the project, which the user chose', async () => {
    const real = tree();
    const home = tree();
    symlinkSync(real, join(home, 'logs'));
    const project = tree();
    await turn(project, { path: join(home, 'logs/audit/audit.jsonl') });
    await lines(join(real, 'audit/audit.jsonl'), 3);
  });
});

/** The file's text, or nothing while it is not there: a rotation may rename it between two reads. */
function textOf(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
