import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../support/fixtures.js';
import { built, root } from '../support/run-bin.js';
import { python } from './python.js';
import {
  homeWith,
  llmCall,
  observer,
  type Step,
  standIn,
  type ToolStep,
  toolCall,
  turn,
} from './stand-in.js';

/** A tool call through Hermes' tool path in the stand-in (stand_in.py `run_tool`). */
const tool = (
  name: string,
  args: Record<string, unknown>,
  id: string,
  more: Partial<ToolStep> = {},
  ids = turn,
): Step => ({
  tool: { name, args, tool_call_id: id, session_id: ids.session_id, turn_id: ids.turn_id, ...more },
});

const redactor = tsExtension(
  'redactor',
  `hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes('sk-live-') ? rewrite(mapStrings(e.result, (s) => s.replaceAll('sk-live-123', '[redacted]'))) : undefined);`,
  "import { rewrite } from 'hermes-extensions';\nimport { mapStrings } from 'hermes-extensions/policy';",
);

const forms = [
  { form: 'with middleware (Hermes v0.17.0 and later)', middleware: true },
  { form: 'with hooks alone (older Hermes)', middleware: false },
];

describe.runIf(built && python)(
  'the Hermes agent plugin’s tool calls, in a stand-in for Hermes',
  () => {
    it('with middleware: the tool middleware is registered, and transform_tool_result is not a hook', async () => {
      const { records, code, stderr } = await standIn([], {
        home: homeWith(),
        project: tree(),
        middleware: true,
      });
      expect(code, stderr).toBe(0);
      expect(records[0]?.middleware).toMatchObject({ tool_request: 1, tool_execution: 1 });
      expect(records[0]?.registered).not.toHaveProperty('transform_tool_result');
      expect(records[0]?.problems).toEqual([]);
    });

    it('with middleware: a rewrite that drops an argument is applied as written, the chain run once', async () => {
      const seen = join(tree(), 'seen.jsonl');
      const rewriter = tsExtension(
        'rewriter',
        `hermes.on('intercept_tool_call', (e) => { appendFileSync(${JSON.stringify(seen)}, JSON.stringify(e.toolArgs) + '\\n'); return rewrite({ url: e.toolArgs.url }); }, { tools: ['fetch'] });`,
        "import { rewrite } from 'hermes-extensions';\nimport { appendFileSync } from 'node:fs';",
      );
      const { records, code, stderr } = await standIn(
        [
          llmCall('look it up'),
          tool('fetch', { url: 'https://example.com', headers: { cookie: 'a' } }, 'c1', {
            result: '{"ok": true}',
          }),
          // A call without an id (a caller outside the agent loop) is found by its arguments.
          tool('fetch', { url: 'https://example.org', headers: { cookie: 'b' } }, '', {
            result: '{"ok": true}',
          }),
        ],
        { home: homeWith({ rewriter }, false), project: tree(), middleware: true },
      );
      expect(code, stderr).toBe(0);
      const [call, idless] = records.filter((r) => r.tool === 'fetch');
      expect(call?.ran_with).toEqual({ url: 'https://example.com' });
      expect(call?.model_gets).toBe('{"ok": true}');
      expect(idless?.ran_with).toEqual({ url: 'https://example.org' });
      // tool_request ran the chain; pre_tool_call took its decision instead of running it again.
      expect(jsonLines(seen)).toHaveLength(2);
    });

    it('with middleware: an ask is handed to pre_tool_call, so Hermes asks the person; a yes runs the call as rewritten', async () => {
      const asker = tsExtension(
        'asker',
        `hermes.on('intercept_tool_call', () => ask('writes a file'), { tools: ['write'] });
         hermes.on('intercept_tool_call', (e) => rewrite({ path: e.toolArgs.path, content: 'safe' }), { tools: ['write'] });`,
        "import { ask, rewrite } from 'hermes-extensions';",
      );
      const args = { path: 'notes.md', content: 'x', mode: 'append' };
      const { records, code, stderr } = await standIn(
        [
          llmCall('write'),
          tool('write_file', args, 'c1', { result: '{"ok": true}', approve: false }),
          tool('write_file', args, 'c2', { result: '{"ok": true}', approve: true }),
        ],
        { home: homeWith({ asker }, false), project: tree(), middleware: true },
      );
      expect(code, stderr).toBe(0);
      const [denied, approved] = records.filter((r) => r.tool === 'write_file');
      expect(denied?.directive).toMatchObject({
        action: 'approve',
        message: 'asker: writes a file',
        rule_key: 'hermes-extensions:asker:write_file',
      });
      expect(denied?.ran_with).toBeNull();
      expect(approved?.ran_with).toEqual({ path: 'notes.md', content: 'safe' });
    });

    for (const { form, middleware } of forms) {
      it(`${form}: where Hermes approves unasked (yolo mode: --yolo, hermes -z), an ask refuses the call, saying why`, async () => {
        const events = join(tree(), 'events.jsonl');
        const asker = tsExtension(
          'asker',
          `hermes.on('intercept_tool_call', () => ask('writes a file'), { tools: ['write'] });`,
          "import { ask } from 'hermes-extensions';",
        );
        const { records, code, stderr } = await standIn(
          [llmCall('write'), tool('write_file', { path: 'notes.md', content: 'x' }, 'c1')],
          {
            home: homeWith({ asker, observer: observer(events) }, false),
            project: tree(),
            middleware,
            env: { HERMES_YOLO_MODE: '1' },
          },
        );
        expect(code, stderr).toBe(0);
        const [call] = records.filter((r) => r.tool === 'write_file');
        expect(call?.ran_with).toBeNull();
        expect(call?.directive).toMatchObject({
          action: 'block',
          message: expect.stringContaining(
            'asker asks a person to approve this call (writes a file)',
          ),
        });
        expect(String(call?.model_gets)).toContain('yolo mode');
        // Told once, as refused.
        const told = jsonLines(events).filter((e) => e.tool_call_id === 'c1');
        expect(told).toHaveLength(1);
        expect(told[0]).toMatchObject({ status: 'blocked' });
      });
    }

    it('with middleware: a call another plugin’s tool_request changed after this one is judged again, and runs as judged', async () => {
      // Loaded after the plugin, so its replacement wins (request middleware does not chain): it
      // takes the pin away.
      const late = tree({
        'plugin.yaml': 'name: late\n',
        '__init__.py': `def register(ctx):
    ctx.register_middleware("tool_request", lambda args, **_: {"args": {"command": "pwd"}})
`,
      });
      const project = tree({ '.git/HEAD': '' });
      const { records, code, stderr } = await standIn(
        [llmCall('where'), tool('terminal', { command: 'pwd' }, 'c1', { terminal_cwd: tree() })],
        { home: homeWith({}, false), project, middleware: true, pluginsAfter: [late] },
      );
      expect(code, stderr).toBe(0);
      const call = records.find((r) => r.tool === 'terminal');
      expect(JSON.parse(String(call?.model_gets)).output).toBe(`${project}\n`);
    });

    it('with middleware: a call whose check does not answer in time is refused, never run', async () => {
      const slow = tsExtension(
        'slow',
        `hermes.on('intercept_tool_call', async () => { await new Promise((r) => setTimeout(r, 6000)); }, { timeoutMs: 20000 });`,
      );
      const { records, code, stderr } = await standIn(
        [llmCall('go'), tool('read_file', { path: 'a.py' }, 'c1', { result: 'x' })],
        { home: homeWith({ slow }, false), project: tree(), hookTimeout: 3, middleware: true },
      );
      expect(code, stderr).toBe(0);
      const call = records.find((r) => r.tool === 'read_file');
      expect(call?.ran_with).toBeNull();
      // The bridge ends the chain a little before the plugin stops waiting (its refusal names who
      // ran); on a loaded machine the plugin's own bound may come first.
      expect(call?.directive).toMatchObject({
        action: 'block',
        message: expect.stringMatching(/cut off: slow|did not answer within/),
      });
    });

    it('with middleware: a secret in a delegate_task result is redacted before the model and observers get it', async () => {
      const events = join(tree(), 'events.jsonl');
      const { records, code, stderr } = await standIn(
        [
          llmCall('delegate'),
          tool('delegate_task', { goal: 'find the key' }, 'c1', {
            result: '{"results": [{"summary": "the key is sk-live-123"}]}',
          }),
        ],
        {
          home: homeWith({ redactor, observer: observer(events) }, false),
          project: tree(),
          middleware: true,
        },
      );
      expect(code, stderr).toBe(0);
      const gets = records.find((r) => r.tool === 'delegate_task')?.model_gets;
      expect(JSON.parse(String(gets))).toEqual({ results: [{ summary: 'the key is [redacted]' }] });
      const told = jsonLines(events);
      expect(told).toHaveLength(1);
      expect(JSON.stringify(told)).not.toContain('sk-live-123');
    });

    it('with middleware: a result whose check fails is withheld, never handed on', async () => {
      const broken = tsExtension(
        'broken',
        `hermes.on('transform_tool_result', () => { throw new Error('redactor crashed'); });`,
      );
      const { records, code, stderr } = await standIn(
        [llmCall('go'), tool('delegate_task', { goal: 'x' }, 'c1', { result: 'KEY=sk-live-123' })],
        { home: homeWith({ broken }, false), project: tree(), middleware: true },
      );
      expect(code, stderr).toBe(0);
      const gets = String(records.find((r) => r.tool === 'delegate_task')?.model_gets);
      expect(gets).not.toContain('sk-live-123');
      expect(JSON.parse(gets)).toMatchObject({
        error: expect.stringContaining('redactor crashed'),
        blocked_by_extension: true,
      });
    });

    for (const { form, middleware } of forms) {
      it(`${form}: a refused call is reported once, and no result chain runs over its refusal`, async () => {
        const events = join(tree(), 'events.jsonl');
        const transformed = join(tree(), 'transformed.jsonl');
        const results = tsExtension(
          'results',
          `hermes.on('transform_tool_result', (e) => { appendFileSync(${JSON.stringify(transformed)}, JSON.stringify(e.result) + '\\n'); return rewrite('changed'); });`,
          "import { rewrite } from 'hermes-extensions';\nimport { appendFileSync } from 'node:fs';",
        );
        const { records, code, stderr } = await standIn(
          [
            llmCall('add a feature'),
            tool('write_file', { path: 'src/app.py', content: 'x' }, 'c1'),
          ],
          {
            home: homeWith({ results, observer: observer(events, '*') }),
            project: tree({ '.git/HEAD': '' }),
            middleware,
          },
        );
        expect(code, stderr).toBe(0);
        const call = records.find((r) => r.tool === 'write_file');
        expect(call?.ran_with).toBeNull();
        expect(String(call?.model_gets)).toMatch(/Blocked by workflow-guard: write\b/);
        const ofCall = jsonLines(events).filter((e) => e.tool_call_id === 'c1');
        expect(ofCall.filter((e) => e.event === 'post_tool_call')).toEqual([
          expect.objectContaining({ status: 'blocked', error_type: 'plugin_block' }),
        ]);
        expect(ofCall.filter((e) => e.event === 'hook_decision')).toEqual([
          expect.objectContaining({ hook: 'intercept_tool_call' }),
        ]);
        expect(jsonLines(transformed)).toEqual([]);
      });

      it(`${form}: a terminal command runs in the folder it was judged in, wherever the terminal was`, async () => {
        const project = tree({ '.git/HEAD': '' });
        const folder = join(project, "it's here");
        mkdirSync(folder);
        const { records, code, stderr } = await standIn(
          [
            llmCall('where am I'),
            tool('terminal', { command: 'pwd' }, 'c1', { terminal_cwd: tree() }),
            tool('terminal', { command: 'pwd', workdir: "it's here" }, 'c2', {
              terminal_cwd: tree(),
            }),
          ],
          { home: homeWith({}, false), project, middleware },
        );
        expect(code, stderr).toBe(0);
        const output = (id: number) =>
          JSON.parse(String(records.filter((r) => r.tool === 'terminal')[id]?.model_gets)).output;
        expect(output(0)).toBe(`${project}\n`);
        expect(output(1)).toBe(`${folder}\n`);
      });

      it(`${form}: a subagent’s calls carry its identity, in the turn that started it`, async () => {
        const seen = join(tree(), 'seen.jsonl');
        const events = join(tree(), 'events.jsonl');
        const watcher = tsExtension(
          'watcher',
          `hermes.on('intercept_tool_call', (e) => { appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ agent: e.agent ?? null, session: e.sessionId, tool: e.toolName }) + '\\n'); });`,
          "import { appendFileSync } from 'node:fs';",
        );
        const child = { session_id: 'child-1', turn_id: 'ct1', platform: 'subagent' };
        const orphan = { session_id: 'child-2', turn_id: 'ct2', platform: 'subagent' };
        const { code, stderr } = await standIn(
          [
            llmCall('delegate'),
            tool('read_file', { path: 'a.py' }, 'c1', { result: 'x' }),
            {
              hook: 'subagent_start',
              kwargs: {
                parent_session_id: 's1',
                parent_turn_id: 't1',
                parent_subagent_id: null,
                child_session_id: 'child-1',
                child_subagent_id: 'sa-1',
                child_role: 'leaf',
                child_goal: 'read',
              },
            },
            llmCall('read', child),
            tool('read_file', { path: 'b.py' }, 'c2', { result: 'x' }, child),
            // A child whose start Hermes did not report: its platform still names it.
            llmCall('read', orphan),
            tool('read_file', { path: 'c.py' }, 'c3', { result: 'x' }, orphan),
          ],
          {
            home: homeWith({ watcher, observer: observer(events) }, false),
            project: tree(),
            middleware,
          },
        );
        expect(code, stderr).toBe(0);
        expect(jsonLines(seen)).toEqual([
          { agent: null, session: 's1', tool: 'read' },
          { agent: { id: 'sa-1', type: 'leaf' }, session: 's1', tool: 'read' },
          { agent: { id: 'child-2' }, session: 'child-2', tool: 'read' },
        ]);
      });
    }
  },
);

describe.runIf(built && python)('the stand-in follows Hermes', () => {
  it('pre_tool_call is bounded by hook_callback_timeout and fails closed, as Hermes does', async () => {
    const slow = tsExtension(
      'slow',
      `hermes.on('intercept_tool_call', async () => { await new Promise((r) => setTimeout(r, 6000)); }, { timeoutMs: 20000 });`,
    );
    const { records, code, stderr } = await standIn(
      [llmCall('go'), toolCall('read_file', { path: 'a.py' }, 'c1')],
      { home: homeWith({ slow }, false), project: tree(), hookTimeout: 2 },
    );
    expect(code, stderr).toBe(0);
    expect(records[2]?.directive).toMatchObject({
      action: 'block',
      message: 'pre_tool_call plugin callback timed out or is still running',
    });
  });

  it('tool_request middleware does not chain; tool_execution nests in load order with a single-use next_call', async () => {
    const plugin = tree({
      'plugin.yaml': 'name: probe\n',
      '__init__.py': readFileSync(join(root, 'test/hermes-agent/probe_plugin.py'), 'utf8'),
    });
    const { records, code, stderr } = await standIn(
      [tool('read_file', { path: 'a.py' }, 'c1', { result: 'x' })],
      { home: homeWith({}, false), project: tree(), plugin, middleware: true },
    );
    expect(code, stderr).toBe(0);
    const call = records.find((r) => r.tool === 'read_file');
    // Both request callbacks saw the model's arguments; the last replacement won; one that raised was ignored.
    expect(call?.ran_with).toEqual({ path: 'second.py', seen: ['a.py', 'a.py'] });
    // outer(inner(tool)); the callback that raised before next_call was skipped, and the
    // second next_call was refused.
    expect(call?.model_gets).toBe('outer(inner(x, twice refused))');
  });
});
