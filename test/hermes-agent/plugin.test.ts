import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installHermesPlugin } from '../../src/host/hermes-agent/plugin-install.js';
import { jsonLines, tree, tsExtension } from '../support/fixtures.js';
import { built, root } from '../support/run-bin.js';
import { python } from './python.js';
import {
  homeWith,
  llmCall,
  observer,
  PLUGIN,
  type Step,
  standIn,
  toolCall,
  turn,
} from './stand-in.js';

/** A tool that ran: Hermes' post_tool_call, then transform_tool_result with the same result. */
const ranTool = (
  toolName: string,
  args: Record<string, unknown>,
  result: string,
  id: string,
  ids = turn,
) => {
  const kwargs = { ...ids, tool_name: toolName, args, result, tool_call_id: id, task_id: '' };
  return [
    { hook: 'post_tool_call', kwargs: { ...kwargs, duration_ms: 3, status: 'ok' } },
    { hook: 'transform_tool_result', kwargs: { ...kwargs, duration_ms: 3, status: 'ok' } },
  ];
};

const resultGuard = tsExtension(
  'results',
  `hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes('sk-live-') ? rewrite(mapStrings(e.result, (s) => s.replaceAll('sk-live-123', '[redacted]'))) : undefined);
   hermes.on('transform_tool_result', (e) => String(e.toolArgs.command).startsWith('env') ? block('environment dumps stay private') : undefined, { tools: ['bash'], priority: 10 });
   hermes.on('transform_tool_result', () => { throw new Error('redactor crashed'); }, { tools: ['broken'] });`,
  "import { rewrite } from 'hermes-extensions';\nimport { mapStrings } from 'hermes-extensions/policy';",
);

const asker = tsExtension(
  'asker',
  `hermes.on('intercept_tool_call', (e) => e.toolName === 'bash' ? ask('runs a shell command') : undefined);
   hermes.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, command: 'echo safe' }), { tools: ['bash'] });
   hermes.on('intercept_tool_call', (e) => rewrite({ url: e.toolArgs.url }), { tools: ['fetch'] });
   hermes.on('transform_user_input', (e) => e.userMessage.startsWith('drop') ? block('dropping tables is not allowed') : undefined);
   hermes.on('before_llm_call', () => injectUser('Keep changes small.'));`,
  "import { ask, rewrite, injectUser } from 'hermes-extensions';",
);

describe.runIf(built && python)('the Hermes agent plugin in a stand-in for Hermes', () => {
  it('before Hermes 0.17.0, registers only hooks Hermes knows, as plugin.yaml declares, transform_tool_result included', async () => {
    const { records, code, stderr } = await standIn([], {
      home: homeWith(),
      project: tree(),
      middleware: false,
    });
    expect(code, stderr).toBe(0);
    const [registration] = records;
    expect(registration?.problems).toEqual([]);
    const manifest = parse(readFileSync(join(PLUGIN, 'plugin.yaml'), 'utf8'));
    expect(Object.keys(registration?.registered ?? {}).sort()).toEqual(
      [...manifest.provides_hooks].sort(),
    );
    expect(registration?.registered).toHaveProperty('transform_tool_result', 1);
    expect(manifest.name).toBe('hermes-extensions');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(pkg.version);
  });

  it('workflow-guard refuses an edit before a plan; the plan passes; post_tool_call reaches observers', async () => {
    const project = tree({ '.git/HEAD': '' });
    const events = join(tree(), 'events.jsonl');
    const home = homeWith({ observer: observer(events) });
    const { records, code, stderr } = await standIn(
      [
        llmCall('add a feature'),
        toolCall('write', { path: 'src/app.py', content: 'x' }, 'c1'),
        toolCall('write', { path: 'plans/active/plan.md', content: '1. do it' }, 'c2'),
        {
          hook: 'post_tool_call',
          kwargs: {
            ...turn,
            tool_name: 'write',
            args: { path: 'plans/active/plan.md' },
            result: '{"ok": true}',
            tool_call_id: 'c2',
            duration_ms: 3,
            status: 'ok',
          },
        },
        { hook: 'post_llm_call', kwargs: { ...turn, assistant_response: 'done' } },
      ],
      // Before 0.17.0 the turn's input chains run at pre_llm_call, as context.
      { home, project, middleware: false },
    );
    expect(code, stderr).toBe(0);
    const [, llm, refused, allowed] = records;
    // workflow-guard tells the model to plan first, as context on the user's message.
    expect(llm?.results).toEqual([{ context: expect.stringContaining('No plan exists yet') }]);
    expect(refused?.directive).toMatchObject({
      action: 'block',
      message: expect.stringMatching(/^Blocked by workflow-guard: write would write src\/app\.py/),
    });
    expect(allowed?.directive).toEqual({ action: null, args: null });
    expect(jsonLines(events)).toEqual([
      expect.objectContaining({
        event: 'post_tool_call',
        tool_name: 'write',
        tool_call_id: 'c2',
        status: 'ok',
        session_id: 's1',
        turn_id: 't1',
      }),
    ]);
  });

  it('a rewrite is a modify, an ask an approve Hermes asks the person about, a dropped argument a block', async () => {
    const project = tree({ '.git/HEAD': '' });
    const { records, code, stderr } = await standIn(
      [
        llmCall('tidy up'),
        toolCall('terminal', { command: 'rm -rf build', timeout: 5 }, 'c1'),
        toolCall('fetch', { url: 'https://example.com', headers: { a: '1' } }, 'c2'),
      ],
      { home: homeWith({ asker }, false), project, middleware: false },
    );
    expect(code, stderr).toBe(0);
    const [, llm, terminal, fetch] = records;
    expect(llm?.results).toEqual([{ context: expect.stringContaining('Keep changes small.') }]);
    // The command rewritten (and put in the folder it was judged in), the other argument kept,
    // and the person asked about it.
    expect(terminal?.directive).toEqual({
      action: 'approve',
      message: 'asker: runs a shell command',
      rule_key: 'hermes-extensions:asker:terminal',
      args: { command: `cd -- ${project} && {\necho safe\n}`, timeout: 5 },
    });
    // Hermes merges a modify over the call's arguments: one that drops `headers` cannot be made.
    expect(fetch?.directive).toMatchObject({
      action: 'block',
      message: expect.stringContaining('asker rewrote this call without the argument(s) headers'),
    });
  });

  it('before Hermes 0.17.0, a blocked request refuses every tool call of its turn, and the next turn starts afresh', async () => {
    const next = { ...turn, turn_id: 't2' };
    const { records, code, stderr } = await standIn(
      [
        llmCall('drop the users table'),
        toolCall('read', { path: 'a.py' }, 'c1'),
        llmCall('read a.py', next),
        toolCall('read', { path: 'a.py' }, 'c2', next),
      ],
      { home: homeWith({ asker }), project: tree({ '.git/HEAD': '' }), middleware: false },
    );
    expect(code, stderr).toBe(0);
    const [, refused, call, , later] = records;
    expect(refused?.results).toEqual([
      {
        context: expect.stringMatching(
          /refused by asker: dropping tables is not allowed\nDo not carry it out/,
        ),
      },
    ]);
    expect(call?.directive).toEqual({
      action: 'block',
      message: 'dropping tables is not allowed',
      args: null,
    });
    expect(later?.directive).toEqual({ action: null, args: null });
  });

  it('before Hermes 0.17.0, a rewritten request goes to the model as context, and to before_llm_call', async () => {
    const echo = tsExtension(
      'echo',
      // First in the chain, before workflow-guard's own reminder.
      "hermes.on('before_llm_call', (e) => injectUser('last: ' + e.messages.at(-1)?.content + ' of ' + e.messages.length), { priority: 0 });",
      "import { injectUser } from 'hermes-extensions';",
    );
    const history = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi', tool_calls: [] },
      { role: 'user', content: 'fix the bug' },
    ];
    const step = llmCall('fix the bug');
    const { records, stderr } = await standIn(
      [{ ...step, kwargs: { ...step.kwargs, conversation_history: history } }],
      { home: homeWith({ echo }), project: tree({ '.git/HEAD': '' }), middleware: false },
    );
    const context = (records[1]?.results?.[0] as { context?: string } | undefined)?.context;
    expect(context, stderr).toContain(
      'workflow-guard rewrote this request. Treat the request as:\n/start-feature fix the bug',
    );
    // The history's copy of this turn's message, as transform_user_input left it.
    expect(context).toContain('last: /start-feature fix the bug of 3');
  });

  it('before Hermes 0.17.0, a tool result is redacted whatever its shape, refused, or withheld when its redactor throws; observers get what the model gets', async () => {
    const events = join(tree(), 'events.jsonl');
    const home = homeWith({ observer: observer(events), results: resultGuard }, false);
    const { records, code, stderr } = await standIn(
      [
        llmCall('look around'),
        ...ranTool(
          'read_file',
          { path: '.env' },
          '{"content": "KEY=sk-live-123", "total_lines": 1}',
          'c1',
        ),
        ...ranTool('terminal', { command: 'cat notes' }, 'the key is sk-live-123', 'c2'),
        ...ranTool(
          'terminal',
          { command: 'env' },
          '{"output": "KEY=sk-live-123", "exit_code": 0}',
          'c3',
        ),
        ...ranTool('broken', {}, 'KEY=sk-live-123', 'c4'),
        ...ranTool('read_file', { path: 'a.py' }, '{"content": "print(1)"}', 'c5'),
      ],
      { home, project: tree({ '.git/HEAD': '' }), middleware: false },
    );
    expect(code, stderr).toBe(0);
    const gets = records.filter((r) => r.hook === 'transform_tool_result').map((r) => r.model_gets);
    // JSON text stays JSON text of the same shape; plain text stays text.
    expect(JSON.parse(String(gets[0]))).toEqual({ content: 'KEY=[redacted]', total_lines: 1 });
    expect(gets[1]).toBe('the key is [redacted]');
    expect(JSON.parse(String(gets[2]))).toEqual({
      error: 'environment dumps stay private',
      blocked_by_extension: true,
      extension: 'results',
    });
    expect(JSON.parse(String(gets[3]))).toMatchObject({
      error: expect.stringContaining('redactor crashed'),
      blocked_by_extension: true,
      extension: 'results',
    });
    // A result no handler changes is Hermes' own, untouched.
    expect(gets[4]).toBe('{"content": "print(1)"}');
    const told = jsonLines(events).map((e) => String(e.result));
    expect(told).toHaveLength(5);
    expect(told.join('\n')).not.toContain('sk-live-123');
    expect(told[0]).toContain('[redacted]');
  });

  it.runIf(process.platform === 'linux')(
    'before Hermes 0.17.0, a bridge that dies before a result is checked: the result is withheld, never handed on',
    async () => {
      const { records, code, stderr } = await standIn(
        [
          llmCall('look around'),
          toolCall('read_file', { path: '.env' }, 'c1'),
          { kill_children: true },
          ...ranTool('read_file', { path: '.env' }, 'KEY=sk-live-123', 'c1'),
        ],
        {
          home: homeWith({ results: resultGuard }, false),
          project: tree({ '.git/HEAD': '' }),
          middleware: false,
        },
      );
      expect(code, stderr).toBe(0);
      const gets = records.find((r) => r.hook === 'transform_tool_result')?.model_gets;
      expect(JSON.parse(String(gets))).toMatchObject({
        error: expect.stringContaining('the bridge exited during this turn'),
        blocked_by_extension: true,
      });
    },
  );

  it('before Hermes 0.17.0, a result whose check outlasts Hermes’ hook timeout is withheld: the plugin answers before Hermes stops waiting', async () => {
    const slow = tsExtension(
      'slow',
      `hermes.on('transform_tool_result', async () => { await new Promise((r) => setTimeout(r, 5000)); }, { timeoutMs: 20000 });`,
    );
    const { records, code, stderr } = await standIn(
      [
        llmCall('look around'),
        // transform_tool_result alone: no post_tool_call checked the result before it.
        ranTool('read_file', { path: 'keys.txt' }, 'KEY=sk-live-123', 'c1')[1] as Step,
      ],
      {
        home: homeWith({ slow }, false),
        project: tree({ '.git/HEAD': '' }),
        hookTimeout: 3,
        middleware: false,
      },
    );
    expect(code, stderr).toBe(0);
    const gets = records.find((r) => r.hook === 'transform_tool_result')?.model_gets;
    expect(String(gets)).not.toContain('sk-live-123');
    expect(JSON.parse(String(gets))).toMatchObject({
      error: expect.stringContaining('did not answer within 1 s'),
      blocked_by_extension: true,
    });
  });

  it('installed into the agent’s home, the plugin runs from there with this package', async () => {
    const home = homeWith();
    const { pluginDir } = installHermesPlugin({ hermesHome: home });
    const { records, code, stderr } = await standIn(
      [llmCall('add a feature'), toolCall('write', { path: 'src/app.py', content: 'x' }, 'c1')],
      { home, project: tree({ '.git/HEAD': '' }), plugin: pluginDir },
    );
    expect(code, stderr).toBe(0);
    expect(records[2]?.directive).toMatchObject({
      action: 'block',
      message: expect.stringMatching(/^Blocked by workflow-guard/),
    });
  });

  it('linked into the agent’s home, the plugin finds the package it links to', async () => {
    const home = homeWith();
    const plugin = join(home, 'plugins', 'hermes-extensions');
    mkdirSync(dirname(plugin), { recursive: true });
    symlinkSync(PLUGIN, plugin);
    const { records, code, stderr } = await standIn(
      [llmCall('add a feature'), toolCall('write', { path: 'src/app.py', content: 'x' }, 'c1')],
      { home, project: tree({ '.git/HEAD': '' }), plugin },
    );
    expect(code, stderr).toBe(0);
    expect(records[2]?.directive?.message).toMatch(/^Blocked by workflow-guard/);
  });

  it.runIf(process.platform === 'linux')(
    'a bridge that dies mid-turn: that turn’s calls are refused, the next turn runs in a new bridge',
    async () => {
      const next = { ...turn, turn_id: 't2' };
      const { records, code, stderr } = await standIn(
        [
          llmCall('add a feature'),
          toolCall('read_file', { path: 'a.py' }, 'c1'),
          { kill_children: true },
          toolCall('read_file', { path: 'a.py' }, 'c2'),
          llmCall('add a feature', next),
          toolCall('write', { path: 'src/app.py', content: 'x' }, 'c3', next),
        ],
        { home: homeWith(), project: tree({ '.git/HEAD': '' }) },
      );
      expect(code, stderr).toBe(0);
      const [, , before, killed, after, , later] = records;
      expect(before?.directive).toEqual({ action: null, args: null });
      expect(killed).toEqual({ killed: 1 });
      expect(after?.directive).toMatchObject({
        action: 'block',
        message: expect.stringContaining('the bridge exited during this turn'),
      });
      expect(stderr).toContain('the bridge process exited');
      expect(later?.directive?.message).toMatch(/^Blocked by workflow-guard/);
    },
  );

  it('without its package the plugin refuses tool calls, saying what is missing and what to do', async () => {
    // An installed copy whose package has gone.
    const plugin = join(tree(), 'hermes-extensions');
    cpSync(PLUGIN, plugin, { recursive: true });
    const gone = join(tree(), 'gone');
    writeFileSync(
      join(plugin, 'install.json'),
      JSON.stringify({ package_root: gone, node: process.execPath, version: '0.1.0' }),
    );
    const { records, code, stderr } = await standIn(
      [
        llmCall('hello'),
        toolCall('read', { path: 'a.py' }, 'c1'),
        { cli: ['extensions', 'list'] },
        ...ranTool('read', { path: 'a.py' }, 'KEY=sk-live-123', 'c1'),
      ],
      // The hooks alone: the result is checked at post_tool_call (with middleware, tool_execution
      // withholds it: plugin-tools.test.ts).
      { home: homeWith(), project: tree(), plugin, middleware: false },
    );
    expect(code, stderr).toBe(0);
    const [, llm, call, cli, , result] = records;
    // A result nobody could check is withheld, and the refusal says why.
    expect(String(result?.model_gets)).not.toContain('sk-live-123');
    expect(JSON.parse(String(result?.model_gets))).toMatchObject({
      error: expect.stringContaining('is not there any more'),
      blocked_by_extension: true,
    });
    // The turn goes on (Hermes cannot refuse it here); the log says why checks fail.
    expect(llm?.results).toEqual([]);
    expect(stderr).toContain(`the hermes-extensions package that ${join(plugin, 'install.json')}`);
    expect(call?.directive?.action).toBe('block');
    expect(call?.directive?.message).toContain(`(${gone}) is not there any more`);
    expect(call?.directive?.message).toContain('install the plugin again');
    expect(cli?.cli).toBe(2);
  });

  it('`hermes extensions …` inside Hermes runs this package’s command line, with its exit code', async () => {
    const home = homeWith({ asker });
    const project = tree({ '.git/HEAD': '' });
    const listed = await standIn([{ cli: ['extensions', 'list', '--json'] }], { home, project });
    expect(listed.records[1]).toEqual({ cli: 0 });
    const names = JSON.parse(listed.stdout).map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(['asker', 'workflow-guard']));
    const wrong = await standIn([{ cli: ['extensions', 'nonsense'] }], { home, project });
    expect(wrong.records[1]).toEqual({ cli: 2 });
  });
});
