import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = `${root}bin/hermes.js`;
const built = existsSync(`${root}dist/cli/main.js`);

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/**
 * A redactor that hides a key whatever the result's shape, a guard that refuses what an env dump
 * returns, and a handler that throws on `broken` (transform_tool_result fails closed).
 */
const results = tsExtension(
  'results',
  `hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes('sk-live-') ? rewrite(mapStrings(e.result, (s) => s.replaceAll('sk-live-123', '[redacted]'))) : undefined);
   hermes.on('transform_tool_result', (e) => String(e.toolArgs.command).startsWith('env') ? block('environment dumps stay private') : undefined, { tools: ['bash'] });
   hermes.on('transform_tool_result', () => { throw new Error('redactor crashed'); }, { tools: ['broken'] });`,
  "import { rewrite } from 'hermes-extensions';\nimport { mapStrings } from 'hermes-extensions/policy';",
);

/** The real bridge process: `call` sends one request and reads its answer. */
function bridge(home: string, cwd: string) {
  const child = spawn(process.execPath, [bin, 'extensions', 'serve', '--stdio', '--cwd', cwd], {
    env: { ...process.env, HERMES_HOME: home },
  }) as ChildProcessWithoutNullStreams;
  children.push(child);
  const answers: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    answers.push(JSON.parse(line));
    waiting.shift()?.();
  });
  const call = async (id: number, method: string, params: unknown) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    if (answers.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return answers.shift() as { id: number; result?: Record<string, unknown>; error?: unknown };
  };
  return { child, call };
}

describe.runIf(built)('bridge: transform_tool_result', () => {
  it('rewrites a result whatever its shape, blocks one, and fails closed when a handler throws', async () => {
    const { child, call } = bridge(
      tree({ 'extensions/results.ts': results }),
      tree({ '.git/HEAD': '' }),
    );
    const init = await call(1, 'initialize', {});
    expect(init.result?.hooks).toMatchObject({ transform_tool_result: true });
    const started = await call(2, 'turn/start', { session_id: 's1' });
    const turn_id = (started.result as { turn_id: string }).turn_id;

    // A JSON result: redacted inside, its shape kept.
    const read = await call(3, 'transform_tool_result', {
      turn_id,
      tool_name: 'read',
      tool_args: { path: '.env' },
      result: { content: 'KEY=sk-live-123', lines: 1 },
      tool_call_id: 'c1',
    });
    expect(read.result).toMatchObject({
      blocked: false,
      changed: true,
      value: { content: 'KEY=[redacted]', lines: 1 },
      trace: [expect.objectContaining({ extension: 'results', action: 'rewrite' })],
    });

    // A text result the chain leaves as it is.
    const plain = await call(4, 'transform_tool_result', {
      turn_id,
      tool_name: 'read',
      tool_args: { path: 'a.txt' },
      result: 'nothing secret',
    });
    expect(plain.result).toMatchObject({ blocked: false, changed: false, value: 'nothing secret' });

    const dump = await call(5, 'transform_tool_result', {
      turn_id,
      tool_name: 'bash',
      tool_args: { command: 'env' },
      result: 'HOME=/root\nKEY=sk-live-123',
      is_error: false,
    });
    expect(dump.result).toMatchObject({
      blocked: true,
      message: 'environment dumps stay private',
      blocked_by: 'results',
    });

    const broken = await call(6, 'transform_tool_result', {
      turn_id,
      tool_name: 'broken',
      tool_args: {},
      result: 'KEY=sk-live-123',
    });
    expect(broken.result).toMatchObject({ blocked: true, blocked_by: 'results' });
    expect(String(broken.result?.message)).toContain('redactor crashed');
    // The refused result is nowhere in the answer.
    expect(JSON.stringify(broken.result)).not.toContain('sk-live-123');

    // A payload without the result's call is refused before any handler runs.
    const missing = await call(7, 'transform_tool_result', { turn_id, result: 'x' });
    expect(missing).toMatchObject({ error: { code: -32602 } });
    child.stdin.end();
  });
});

/** A gate that withholds an answer claiming passing tests, and redacts a key in any other. */
const answers = tsExtension(
  'answers',
  `hermes.on('transform_final_answer', (e) => /tests pass/.test(e.answer) ? block('no test ran in this turn') : e.answer.includes('sk-live-') ? rewrite(e.answer.replaceAll('sk-live-123', '[redacted]')) : undefined);`,
  "import { rewrite } from 'hermes-extensions';",
);

describe.runIf(built)('bridge: transform_final_answer', () => {
  it('rewrites the answer, withholds a blocked one, and refuses a payload without one', async () => {
    const { child, call } = bridge(
      tree({ 'extensions/answers.ts': answers }),
      tree({ '.git/HEAD': '' }),
    );
    const init = await call(1, 'initialize', {});
    expect(init.result?.hooks).toMatchObject({ transform_final_answer: true });
    const started = await call(2, 'turn/start', { session_id: 's1' });
    const turn_id = (started.result as { turn_id: string }).turn_id;
    const redacted = await call(3, 'transform_final_answer', {
      turn_id,
      answer: 'Use sk-live-123.',
    });
    expect(redacted.result).toMatchObject({
      blocked: false,
      changed: true,
      value: 'Use [redacted].',
    });
    const claimed = await call(4, 'transform_final_answer', {
      turn_id,
      answer: 'Done; tests pass.',
    });
    expect(claimed.result).toMatchObject({
      blocked: true,
      message: 'no test ran in this turn',
      blocked_by: 'answers',
    });
    const missing = await call(5, 'transform_final_answer', { turn_id });
    expect(missing).toMatchObject({ error: { code: -32602 } });
    child.stdin.end();
  });
});
