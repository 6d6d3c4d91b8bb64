import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { opencode } from '../../../src/host/command-hook/agents.js';
import { createHermesPlugin } from '../../../src/host/opencode/plugin.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built, root, runBin } from '../../support/run-bin.js';

// The OpenCode plugin (src/host/opencode/plugin.ts) as OpenCode drives it: its hooks called with
// the inputs and outputs OpenCode hands them (opencode-ai 1.18.33's), each answered by a real
// `hermes hook opencode` process. test/e2e/opencode.test.ts runs it inside the real OpenCode.

/** A project guarded by workflow-guard (and `extra`), and the hermes command the plugin runs. */
function setup(extra: Record<string, string> = {}) {
  const guard = JSON.stringify(join(root, 'extensions', 'workflow-guard'));
  const hermesHome = tree({
    'config.yaml': `extensions:\n  paths: [${[guard, ...Object.keys(extra).map((name) => JSON.stringify(`./extensions/${name}`))].join(', ')}]\n`,
    ...Object.fromEntries(
      Object.entries(extra).map(([name, source]) => [`extensions/${name}/index.ts`, source]),
    ),
  });
  const project = tree({ '.git/HEAD': 'ref: refs/heads/main\n', 'src/app.ts': 'export {};\n' });
  // The environment travels on the command line: the plugin runs hermes with OpenCode's own.
  const argv = ['/usr/bin/env', `HERMES_HOME=${hermesHome}`, 'HERMES_DAEMON=0', process.execPath];
  return { project, hermesHome, argv: [...argv, bin, 'hook', 'opencode'] };
}

async function hooksFor(argv: string[], project: string, extra: object = {}) {
  return createHermesPlugin({ argv, ...extra })({ directory: project });
}

const call = (tool: string, callID = `call_${tool}`) => ({ tool, sessionID: 'ses_1', callID });

describe.runIf(built)('the OpenCode plugin, answered by hermes hook opencode', () => {
  it('refuses an edit before a plan with workflow-guard’s reason, lets a read through, and the Stop leaves no turn', async () => {
    const { project, hermesHome, argv } = setup();
    const hooks = await hooksFor(argv, project);
    await hooks['chat.message'](
      { sessionID: 'ses_1' },
      { parts: [{ type: 'text', text: 'fix the login bug' }] },
    );
    // The prompt's context (workflow-guard's reminder) reaches the model's system prompt.
    const system = { system: ['base'] };
    await hooks['experimental.chat.system.transform']({ sessionID: 'ses_1' }, system);
    expect(system.system.join('\n')).toMatch(/No plan exists yet at plans\/active\/plan\.md/);
    const edit = {
      args: { filePath: join(project, 'src/app.ts'), oldString: 'export', newString: 'x' },
    };
    await expect(hooks['tool.execute.before'](call('edit'), edit)).rejects.toThrow(
      /Blocked by workflow-guard: edit would write src\/app\.ts, and no plan exists/,
    );
    const read = { args: { filePath: join(project, 'src/app.ts') } };
    await hooks['tool.execute.before'](call('read'), read);
    expect(read.args).toEqual({ filePath: join(project, 'src/app.ts') });
    expect(readdirSync(join(hermesHome, 'turns')).filter((f) => f.endsWith('.json'))).toHaveLength(
      1,
    );
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
    await hooks.dispose();
    expect(readdirSync(join(hermesHome, 'turns')).filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('applies a rewrite to the very arguments object OpenCode runs the call with', async () => {
    const { project, argv } = setup({
      'no-tmp': tsExtension(
        'no-tmp',
        `hermes.on('intercept_tool_call', (e) => ({ action: 'rewrite', value: { ...e.toolArgs, command: String(e.toolArgs.command).replaceAll('.tmp', '.md') } }), { tools: ['bash'] });`,
      ),
    });
    const hooks = await hooksFor(argv, project);
    const output = { args: { command: 'echo hi > plans/notes.tmp', description: 'write notes' } };
    const args = output.args;
    await hooks['tool.execute.before'](call('bash'), output);
    expect(output.args).toBe(args);
    // The workdir extensions see (the session's folder) does not go back to OpenCode.
    expect(args).toEqual({ command: 'echo hi > plans/notes.md', description: 'write notes' });
  });

  it.each([
    [
      'hermes is missing',
      (dir: string) => [join(dir, 'gone', 'node'), join(dir, 'bin.js')],
      /gone\/node is missing .*hermes hook install opencode/,
    ],
    [
      'hermes exits 1',
      () => [process.execPath, '-e', 'process.exit(1)'],
      /ended with exit code 1 and no answer/,
    ],
    [
      'hermes answers no JSON',
      () => [process.execPath, '-e', 'process.stdout.write("yes")'],
      /answered what is not a hook answer/,
    ],
  ])('fails closed when %s: the call is refused and says why', async (_, argvOf, reason) => {
    const project = tree();
    const hooks = await hooksFor(argvOf(project), project);
    await expect(hooks['tool.execute.before'](call('read'), { args: {} })).rejects.toThrow(reason);
    // A prompt nobody could check is blocked too: every call of its turn would be refused.
    await expect(
      hooks['chat.message']({ sessionID: 'ses_1' }, { parts: [{ type: 'text', text: 'hi' }] }),
    ).rejects.toThrow(reason);
  });

  it('transform_tool_result: a redaction and a block replace what OpenCode hands the model; a throwing redactor withholds it; observers get what the model gets', async () => {
    const events = join(tree(), 'events.jsonl');
    const { project, argv } = setup({
      results: tsExtension(
        'results',
        `hermes.on('transform_tool_result', (e) => String(e.result).includes('sk-live-') ? rewrite(mapStrings(e.result, (s) => s.replaceAll('sk-live-123', '[redacted]'))) : undefined);
         hermes.on('transform_tool_result', (e) => String(e.toolArgs.command).startsWith('env') ? block('environment dumps stay private') : undefined, { tools: ['bash'], priority: 10 });
         hermes.on('transform_tool_result', () => { throw new Error('redactor crashed'); }, { tools: ['grep'] });
         hermes.observe('post_tool_call', (e) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(e) + '\\n'));`,
        "import { rewrite } from 'hermes-extensions';\nimport { mapStrings } from 'hermes-extensions/policy';\nimport { appendFileSync } from 'node:fs';",
      ),
    });
    const hooks = await hooksFor(argv, project);
    await hooks['chat.message'](
      { sessionID: 'ses_1' },
      { parts: [{ type: 'text', text: 'look' }] },
    );
    const after = async (tool: string, args: Record<string, unknown>, text: string) => {
      const output = { title: tool, output: text, metadata: { output: text } };
      await hooks['tool.execute.after']({ ...call(tool), args }, output);
      return output;
    };
    const read = await after('read', { filePath: join(project, '.env') }, 'KEY=sk-live-123');
    expect(read.output).toBe('KEY=[redacted]');
    expect(read.metadata.output).toBe('KEY=[redacted]');
    const env = await after('bash', { command: 'env' }, 'KEY=sk-live-123');
    expect(JSON.parse(env.output)).toEqual({
      error: 'environment dumps stay private',
      blocked_by_extension: true,
      extension: 'results',
    });
    const grep = await after('grep', { pattern: 'KEY' }, 'KEY=sk-live-123');
    expect(JSON.parse(grep.output)).toMatchObject({
      error: expect.stringContaining('redactor crashed'),
      blocked_by_extension: true,
    });
    const plain = await after('read', { filePath: join(project, 'src/app.ts') }, 'export {};');
    expect(plain.output).toBe('export {};');
    await hooks.dispose();
    const told = readFileSync(events, 'utf8');
    expect(told).not.toContain('sk-live-123');
    expect(told).toContain('KEY=[redacted]');
  });

  it.each([
    ['hermes exits 1', [process.execPath, '-e', 'process.exit(1)'], /ended with exit code 1/],
    [
      'hermes answers a result that is not text',
      [
        process.execPath,
        '-e',
        `process.stdout.write(${JSON.stringify(JSON.stringify({ hookSpecificOutput: { updatedToolOutput: { secret: 1 } } }))})`,
      ],
      /not text, so it is withheld/,
    ],
  ])(
    'fails closed at a tool result when %s: the result is withheld, never handed on',
    async (_, argv, reason) => {
      const project = tree();
      const hooks = await hooksFor(argv as string[], project);
      const output = { title: 'read', output: 'KEY=sk-live-123', metadata: {} };
      await hooks['tool.execute.after']({ ...call('read'), args: {} }, output);
      expect(output.output).not.toContain('sk-live-123');
      expect(JSON.parse(output.output)).toMatchObject({
        error: expect.stringMatching(reason),
        blocked_by_extension: true,
        extension: 'hermes-extensions',
      });
    },
  );

  it('refuses a call whose answer holds a decision it does not know', async () => {
    const project = tree();
    const answer = JSON.stringify({ hookSpecificOutput: { permissionDecision: 'maybe' } });
    const hooks = await hooksFor(
      [process.execPath, '-e', `process.stdout.write(${JSON.stringify(answer)})`],
      project,
    );
    await expect(hooks['tool.execute.before'](call('read'), { args: {} })).rejects.toThrow(
      /decision the plugin does not know \(maybe\), so the call is refused/,
    );
  });

  it('fails closed when hermes does not answer in time', async () => {
    const project = tree();
    const hooks = await hooksFor([process.execPath, '-e', 'setTimeout(() => {}, 10000)'], project, {
      timeoutMs: 300,
    });
    await expect(
      hooks['tool.execute.before'](call('bash'), { args: { command: 'ls' } }),
    ).rejects.toThrow(/did not answer within 0\.3 s/);
  });

  it('a project plugin runs the project’s own hermes, and refuses while it is not installed', async () => {
    const project = tree({ '.opencode/plugins/.keep': '' });
    const pluginUrl = pathToFileURL(join(project, '.opencode/plugins/hermes-extensions.js')).href;
    const hooks = await hooksFor([], project, { pluginUrl });
    await expect(hooks['tool.execute.before'](call('read'), { args: {} })).rejects.toThrow(
      `${join(project, 'node_modules/.bin/hermes')} is missing: run npm install in ${project}`,
    );
  });
});

/**
 * A stand-in for hermes that records each event it is given (one JSON line in `log`) and answers
 * `answer`: what the plugin sends, and what it does with an answer, without the chains.
 */
function recordingHermes(log: string, answer: object): string[] {
  const script = `const fs = require('fs'); const e = fs.readFileSync(0, 'utf8'); fs.appendFileSync(${JSON.stringify(log)}, e + '\\n'); process.stdout.write(${JSON.stringify(JSON.stringify(answer))});`;
  return [process.execPath, '-e', script];
}

const events = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('what the OpenCode plugin sends, and does with an answer', () => {
  it('a subagent’s session is its parent’s turn, told apart as agent_id', async () => {
    const project = tree();
    const log = join(project, 'events.jsonl');
    const hooks = await hooksFor(recordingHermes(log, {}), project);
    await hooks.event({
      event: {
        type: 'session.created',
        properties: { info: { id: 'ses_child', parentID: 'ses_1' } },
      },
    });
    await hooks['tool.execute.before'](
      { tool: 'read', sessionID: 'ses_child', callID: 'c1' },
      { args: { filePath: 'a' } },
    );
    // The subagent going idle does not end its parent's turn; the parent's does.
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_child' } } });
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
    expect(events(log)).toEqual([
      {
        cwd: project,
        hook_event_name: 'PreToolUse',
        session_id: 'ses_1',
        agent_id: 'ses_child',
        tool_name: 'read',
        tool_input: { filePath: 'a' },
        tool_use_id: 'c1',
      },
      { cwd: project, hook_event_name: 'Stop', session_id: 'ses_1', stop_hook_active: false },
    ]);
  });

  it('context after a tool result goes to the next model request only; continue: false aborts the session', async () => {
    const project = tree();
    const log = join(project, 'events.jsonl');
    const aborted: string[] = [];
    const client = {
      session: { abort: async ({ path }: { path: { id: string } }) => aborted.push(path.id) },
    };
    const answer = {
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'REMINDER' },
      continue: false,
      stopReason: 'enough',
    };
    const hooks = await createHermesPlugin({ argv: recordingHermes(log, answer) })({
      directory: project,
      client,
    });
    await hooks['tool.execute.after'](
      { tool: 'bash', sessionID: 'ses_1', callID: 'c1', args: { command: 'ls' } },
      { output: 'a\nb' },
    );
    expect(events(log)[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_response: 'a\nb' });
    expect(aborted).toEqual(['ses_1']);
    const first = { system: ['base'] };
    await hooks['experimental.chat.system.transform']({ sessionID: 'ses_1' }, first);
    expect(first.system).toEqual(['base', 'REMINDER']);
    const second = { system: ['base'] };
    await hooks['experimental.chat.system.transform']({ sessionID: 'ses_1' }, second);
    expect(second.system).toEqual(['base']);
  });
});

describe.runIf(built)('hermes hook install / uninstall opencode', () => {
  const hermes = (home: string, ...args: string[]) =>
    runBin(args, {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      HERMES_HOME: join(home, '.hermes'),
    });

  it('writes the plugin into OpenCode’s plugin folder, once, and takes it out again', async () => {
    const home = tree();
    const file = join(home, '.config/opencode/plugins/hermes-extensions.js');
    const installed = await hermes(home, 'hook', 'install', 'opencode');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      `Added the hermes hook for chat.message, tool.execute.before, tool.execute.after, session.idle to ${file}`,
    );
    // OpenCode's own names, not Claude Code's.
    expect(installed.stdout).not.toMatch(/PreToolUse|UserPromptSubmit/);
    const text = readFileSync(file, 'utf8');
    // The command it runs is this Node and this package, by path; the plugin exports one plugin.
    expect(text).toContain(JSON.stringify([process.execPath, bin, 'hook', 'opencode']));
    expect(text.match(/^export /gm)).toEqual(['export ']);
    expect((await hermes(home, 'hook', 'install', 'opencode')).stdout).toMatch(
      /already runs the hermes hook; nothing changed/,
    );
    const removed = await hermes(home, 'hook', 'uninstall', 'opencode');
    expect(removed.stdout).toContain(
      `Removed the hermes hook for chat.message, tool.execute.before, tool.execute.after, session.idle from ${file}`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('the project form names no path of this machine; a file of that name hermes did not write is left alone', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const file = join(project, '.opencode/plugins/hermes-extensions.js');
    const installed = await hermes(
      home,
      'hook',
      'install',
      'opencode',
      '--project',
      '--cwd',
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('const HERMES_HOOK_ARGV = [];');
    expect(readFileSync(file, 'utf8')).not.toContain(root);
    writeFileSync(file, 'export const Mine = async () => ({});\n');
    const refused = await hermes(
      home,
      'hook',
      'install',
      'opencode',
      '--project',
      '--cwd',
      project,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file} was not written by hermes; move it`);
    expect(
      (await hermes(home, 'hook', 'uninstall', 'opencode', '--project', '--cwd', project)).code,
    ).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('export const Mine = async () => ({});\n');
  });
});

describe('OpenCode’s tools as extensions see them', () => {
  it.each([
    [
      'edit',
      { filePath: '/p/a.ts', oldString: 'a', newString: 'b' },
      'edit',
      { path: '/p/a.ts', oldString: 'a', newString: 'b' },
    ],
    ['write', { filePath: '/p/a.ts', content: 'x' }, 'write', { path: '/p/a.ts', content: 'x' }],
    ['apply_patch', { patchText: '*** Begin Patch' }, 'patch', { patch: '*** Begin Patch' }],
    ['webfetch', { url: 'https://x' }, 'web_fetch', { url: 'https://x' }],
    ['todowrite', { todos: [] }, 'todo_write', { todos: [] }],
    ['list', { path: '/p' }, 'ls', { path: '/p' }],
    ['bash', { command: 'ls' }, 'bash', { command: 'ls', workdir: '/p' }],
  ])('%s', (name, input, toolName, toolArgs) => {
    expect(opencode.toolIn(name, input, '/p')).toEqual({ toolName, toolArgs });
    // A rewrite goes back in OpenCode's own names.
    expect(opencode.toolOut(name, input, toolArgs)).toEqual(input);
  });
});
