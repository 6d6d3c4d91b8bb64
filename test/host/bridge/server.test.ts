import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bridgeProcess } from '../../support/bridge-process.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = `${root}bin/hermes.js`;
const built = existsSync(`${root}dist/cli/main.js`);
const guardPath = `${root}extensions/workflow-guard`;

function homeWithGuard() {
  return tree({ 'config.yaml': `extensions:\n  paths: [${JSON.stringify(guardPath)}]\n` });
}

const bridge = bridgeProcess;

describe.runIf(built)('hermes extensions serve --stdio', () => {
  it('answers malformed lines with JSON-RPC errors and keeps serving', async () => {
    const { child, send, next, call } = bridge(homeWithGuard(), tree({ '.git/HEAD': '' }));
    send('this is not json');
    expect(await next()).toMatchObject({ id: null, error: { code: -32700 } });
    send({ jsonrpc: '1.0', id: 1, method: 'initialize' });
    expect(await next()).toMatchObject({ id: 1, error: { code: -32600 } });
    send({ jsonrpc: '2.0', id: { not: 'an id' }, method: 'initialize' });
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    send({ jsonrpc: '2.0', id: true, method: 'initialize' });
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    send({ jsonrpc: '2.0', id: [1], method: 'no/such' });
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await call(2, 'no/such', {})).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(
      await call(3, 'intercept_tool_call', { turn_id: 'missing', tool_name: 'x', tool_args: {} }),
    ).toMatchObject({
      id: 3,
      error: { code: -32001 },
    });
    expect(await call(4, 'turn/start', { session_id: 42 })).toMatchObject({
      id: 4,
      error: { code: -32602 },
    });
    const init = await call(5, 'initialize', {});
    expect(init).toMatchObject({
      id: 5,
      result: { protocol: 'hermes-extensions/1', hooks: { intercept_tool_call: true } },
    });
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  }, 30_000);

  it('keeps turns apart, refuses a second turn of a session, and clears open turns when the host goes', async () => {
    const { child, call } = bridge(homeWithGuard(), tree({ '.git/HEAD': '' }));
    expect(await call(1, 'turn/start', { session_id: 's', turn_id: 'a' })).toMatchObject({
      result: { turn_id: 'a' },
    });
    expect(await call(2, 'turn/start', { session_id: 's' })).toMatchObject({
      error: { code: -32002 },
    });
    expect(await call(3, 'turn/start', { session_id: 'other', turn_id: 'b' })).toMatchObject({
      result: { turn_id: 'b' },
    });
    const blocked = await call(4, 'intercept_tool_call', {
      turn_id: 'b',
      tool_name: 'write',
      tool_args: { path: 'src/x.ts' },
    });
    expect(blocked).toMatchObject({
      result: { blocked: true, blocked_by: 'workflow-guard', changed: false },
    });
    expect((blocked.result as { trace: unknown[] }).trace[0]).toMatchObject({
      extension: 'workflow-guard',
      action: 'block',
      duration_ms: expect.any(Number),
    });
    const llm = await call(5, 'before_llm_call', {
      turn_id: 'a',
      system_prompt: 'Base.',
      messages: [{ role: 'tool', content: 'ok', tool_call_id: 'c1', name: 'read', extra: 1 }],
    });
    const value = (
      llm.result as { value: { system_prompt: string; messages: Array<Record<string, unknown>> } }
    ).value;
    expect(value.system_prompt).toBe('Base.');
    expect(value.messages[0]).toEqual({
      role: 'tool',
      content: 'ok',
      tool_call_id: 'c1',
      name: 'read',
      extra: 1,
    });
    expect(value.messages[1]).toMatchObject({ role: 'user' });
    expect(await call(6, 'turn/end', { turn_id: 'a' })).toMatchObject({ result: { ended: true } });
    expect(await call(7, 'turn/start', { session_id: 's' })).toMatchObject({
      result: { turn_id: expect.any(String) },
    });
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  }, 30_000);

  it('refuses a turn id already open, for any session, and runs each call in the turn its id names', async () => {
    const home = homeWithGuard();
    write(home, {
      'extensions/whoami.ts': `import { defineExtension, rewrite } from 'hermes-extensions';
        export default defineExtension({ name: 'whoami', setup(h) {
          h.on('transform_user_input', (e) => rewrite(e.sessionId + '/' + e.turnId + ': ' + e.userMessage));
        } });`,
    });
    const { child, call } = bridge(home, tree({ '.git/HEAD': '' }));
    const whoRuns = async (id: number, turnId: string) =>
      (
        (await call(id, 'transform_user_input', { turn_id: turnId, user_message: 'hi' })) as {
          result: { value: string };
        }
      ).result.value;
    expect(await call(1, 'turn/start', { session_id: 's1', turn_id: 't' })).toMatchObject({
      result: { turn_id: 't' },
    });
    for (const [id, session] of [
      [2, 's2'],
      [3, 's1'],
    ] as const) {
      expect(await call(id, 'turn/start', { session_id: session, turn_id: 't' })).toMatchObject({
        id,
        error: { code: -32602, message: expect.stringMatching(/turn_id "t" is in use/) },
      });
    }
    expect(await whoRuns(4, 't')).toBe('s1/t: hi');
    // The refused start left nothing behind: s2 starts a turn of its own.
    expect(await call(5, 'turn/start', { session_id: 's2', turn_id: 'u' })).toMatchObject({
      result: { turn_id: 'u' },
    });
    expect(await whoRuns(6, 'u')).toBe('s2/u: hi');
    expect(await whoRuns(7, 't')).toBe('s1/t: hi');
    expect(await call(8, 'turn/start', { session_id: 's3', turn_id: 42 })).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/turn_id/) },
    });
    expect(await call(9, 'turn/start', { session_id: 's3', turn_id: '' })).toMatchObject({
      error: { code: -32602 },
    });
    // Once its turn has ended, an id names nothing until a new turn takes it.
    expect(await call(10, 'turn/end', { turn_id: 't' })).toMatchObject({ result: { ended: true } });
    expect(
      await call(11, 'transform_user_input', { turn_id: 't', user_message: 'late' }),
    ).toMatchObject({ error: { code: -32001 } });
    expect(await call(12, 'turn/start', { session_id: 's3', turn_id: 't' })).toMatchObject({
      result: { turn_id: 't' },
    });
    expect(await whoRuns(13, 't')).toBe('s3/t: hi');
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  }, 30_000);

  it('answers params of the wrong shape with -32602, never -32603', async () => {
    const { child, call } = bridge(homeWithGuard(), tree({ '.git/HEAD': '' }));
    await call(1, 'turn/start', { session_id: 's', turn_id: 't' });
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['before_llm_call', { system_prompt: '', messages: [null] }, /messages\[0\]/],
      ['before_llm_call', { system_prompt: '', messages: ['hi'] }, /messages\[0\]/],
      ['before_llm_call', { system_prompt: '', messages: [], iteration: 'x' }, /iteration/],
      ['before_llm_call', { system_prompt: '', messages: [], model: 5 }, /model/],
      [
        'intercept_tool_call',
        { tool_name: 'read', tool_args: {}, tool_call_id: 5 },
        /tool_call_id/,
      ],
      ['intercept_tool_call', { tool_name: 'read', tool_args: {}, task_id: {} }, /task_id/],
      ['transform_user_input', { user_message: ['x'] }, /user_message/],
    ];
    let id = 2;
    for (const [method, params, message] of bad) {
      expect(await call(id, method, { turn_id: 't', ...params })).toMatchObject({
        id,
        error: { code: -32602, message: expect.stringMatching(message) },
      });
      id++;
    }
    expect(await call(id, 'turn/start', { session_id: 'p', platform: 7 })).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/platform/) },
    });
    expect(await call(id + 1, 'initialize', [1, 2])).toMatchObject({ error: { code: -32602 } });
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  }, 30_000);

  it('answers a line past --max-line-bytes with -32600 and goes on serving', async () => {
    const { child, send, next, call } = bridge(homeWithGuard(), tree({ '.git/HEAD': '' }), [
      '--max-line-bytes',
      '200',
    ]);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(300) } });
    expect(await next()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/200 bytes/) },
    });
    expect(await call(2, 'initialize', {})).toMatchObject({ id: 2, result: {} });
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
  }, 30_000);

  it('refuses a --max-line-bytes that is not a positive whole number', async () => {
    for (const value of ['nope', '0', '1.5']) {
      const result = await promisify(execFile)(
        process.execPath,
        [bin, 'extensions', 'serve', '--stdio', '--max-line-bytes', value],
        { env: { ...process.env, HERMES_HOME: tree() } },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--max-line-bytes/);
    }
  }, 30_000);

  it('serves the Python client: workflow-guard blocks an edit without a plan and allows it with one', async () => {
    const project = tree({ '.git/HEAD': '' });
    const { stdout } = await promisify(execFile)(
      'python3',
      [`${root}test/host/bridge/check_workflow_guard.py`, process.execPath, bin, project],
      { env: { ...process.env, HERMES_HOME: homeWithGuard() } },
    );
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({
      extensions: ['workflow-guard'],
      rewritten: '/start-feature fix the login bug',
      before_plan: [true, 'workflow-guard'],
      plan_write_allowed: true,
      after_plan: [false, null],
      bad_call: -32602,
      too_long: -32600,
      after_too_long: false,
    });
    expect(report.reminder).toMatch(/No plan exists yet/);
    expect(report.parallel).toHaveLength(4);
    for (const [, blocked] of report.parallel) expect(blocked).toEqual(Array(20).fill(false));
  }, 30_000);

  it('serves the Python client: the tools a request offers after restrictTools, and asks', async () => {
    const home = tree({
      'extensions/policy.ts': tsExtension(
        'policy',
        `hermes.on('before_llm_call', () => restrictTools(['read', 'grep'], 'read-only for now'));
         hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).startsWith('deploy/') ? ask('deploy files are reviewed') : undefined, { priority: 10 });
         hermes.on('intercept_tool_call', (e) => e.toolArgs.path === 'deploy/secret' ? block('not the secret') : undefined, { priority: 200 });`,
        `import { ask, restrictTools } from 'hermes-extensions';`,
      ),
    });
    const { stdout } = await promisify(execFile)(
      'python3',
      [
        `${root}test/host/bridge/check_ask_and_tools.py`,
        process.execPath,
        bin,
        tree({ '.git/HEAD': '' }),
      ],
      { env: { ...process.env, HERMES_HOME: home } },
    );
    expect(JSON.parse(stdout)).toEqual({
      tools: ['read', 'grep'],
      tool_restrictions: [{ extension: 'policy', reason: 'read-only for now', hidden: ['write'] }],
      hidden: [true, 'policy', false],
      asked: [false, { message: 'deploy files are reviewed', asked_by: 'policy' }],
      ask_then_block: [true, 'not the secret', false],
      plain: [false, false],
    });
  }, 30_000);

  it("passes the host's observer events, sent as notifications, to observers, sanitized", async () => {
    const home = homeWithGuard();
    const log = `${home}/events.jsonl`;
    const { write } = await import('../../support/fixtures.js');
    write(home, {
      'extensions/recorder.ts': `import { appendFileSync } from 'node:fs';
        import { defineExtension } from 'hermes-extensions';
        export default defineExtension({ name: 'recorder', setup(h) { h.observe('*', (p) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(p) + '\\n')); } });`,
    });
    const { child, send, call } = bridge(home, tree({ '.git/HEAD': '' }));
    send({
      jsonrpc: '2.0',
      method: 'event',
      params: {
        event: 'pre_api_request',
        session_id: 's',
        api_request_id: 'r1',
        request: { api_key: 'k', model: 'm' },
      },
    });
    expect(await call(1, 'event', { event: 'no_such_event' })).toMatchObject({
      error: { code: -32602 },
    });
    expect(
      await call(2, 'event', { event: 'post_api_request', session_id: 's', api_request_id: 'r1' }),
    ).toMatchObject({ result: { delivered: true } });
    expect(await call(3, 'turn/start', { session_id: 's', turn_id: 't' })).toMatchObject({
      result: { turn_id: 't' },
    });
    await call(4, 'intercept_tool_call', {
      turn_id: 't',
      tool_name: 'write',
      tool_args: { path: 'src/a.ts' },
      tool_call_id: 'c9',
    });
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));
    const { readFileSync } = await import('node:fs');
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).toMatchObject([
      {
        event: 'pre_api_request',
        telemetry_schema_version: 'hermes.observer.v1',
        session_id: 's',
        api_request_id: 'r1',
        request: { api_key: '[REDACTED]', model: 'm' },
      },
      { event: 'post_api_request', api_request_id: 'r1' },
      {
        event: 'hook_decision',
        hook: 'intercept_tool_call',
        blocked: true,
        blocked_by: 'workflow-guard',
        tool_call_id: 'c9',
        session_id: 's',
        turn_id: 't',
      },
    ]);
  }, 30_000);

  it('reports each decision once, from the turn: the prompt, the request, the blocked call', async () => {
    const home = tree();
    const log = `${home}/decisions.jsonl`;
    write(home, {
      'extensions/shaper.ts': `import { block, defineExtension, injectSystem, rewrite } from 'hermes-extensions';
        export default defineExtension({ name: 'shaper', setup(h) {
          h.on('transform_user_input', (e) => rewrite(e.userMessage + '!'));
          h.on('before_llm_call', () => injectSystem('be brief'));
          h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });
        } });`,
      'extensions/recorder.ts': `import { appendFileSync } from 'node:fs';
        import { defineExtension } from 'hermes-extensions';
        export default defineExtension({ name: 'recorder', setup(h) { h.observe('hook_decision', (p) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(p) + '\\n')); } });`,
    });
    const { child, call } = bridge(home, tree({ '.git/HEAD': '' }));
    await call(1, 'turn/start', { session_id: 's', turn_id: 't' });
    await call(2, 'transform_user_input', { turn_id: 't', user_message: 'go' });
    await call(3, 'before_llm_call', { turn_id: 't', system_prompt: 'sys', messages: [] });
    for (const [id, tool] of [
      [4, 'write'],
      [5, 'read'],
    ] as const) {
      await call(id, 'intercept_tool_call', {
        turn_id: 't',
        tool_name: tool,
        tool_args: {},
        tool_call_id: `c${id}`,
      });
    }
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));
    const { readFileSync } = await import('node:fs');
    const decisions = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(decisions.map((d) => [d.hook, d.tool_call_id ?? ''])).toEqual([
      ['transform_user_input', ''],
      ['before_llm_call', ''],
      ['intercept_tool_call', 'c4'],
    ]);
    expect(decisions[2]).toMatchObject({ blocked: true, blocked_by: 'shaper', turn_id: 't' });
  }, 30_000);
});
