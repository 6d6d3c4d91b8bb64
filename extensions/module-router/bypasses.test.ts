import { block, createRuntime, defineExtension, runConversation } from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import moduleRouter from './index.js';

/** A project of four modules, two under `src/` and two under `packages/`. */
function project(routing = ROUTING) {
  return tree({
    'docs/MODULES.md': routing,
    'src/auth/index.ts': 'export const login = 1;\n',
    'src/billing/index.ts': 'export const invoice = 1;\n',
    'packages/core/src/a.ts': '',
    'packages/web/src/b.ts': '',
  });
}
const ROUTING =
  '# Modules\n- auth: `src/auth`\n- billing: `src/billing`\n- core: packages/core\n- web: packages/web/\n';

type Extensions = Parameters<typeof createRuntime>[0]['extensions'];

async function routed(root: string, extensions: Extensions = [moduleRouter]) {
  return createRuntime({ extensions, cwd: root });
}

async function firstCall(toolName: string, toolArgs: Record<string, unknown>) {
  const runtime = await routed(project());
  return runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName, toolArgs }));
}

const refused = {
  blocked: true,
  blockedBy: 'module-router',
  message: expect.stringMatching(/Read docs\/MODULES\.md first/),
};

/** Each way a cross-module search got past the router (issue 21 §4), as the model would try it. */
const WAYS: Array<[string, string, Record<string, unknown>]> = [
  ['env', 'bash', { command: 'env grep -r login .' }],
  ['a path-qualified program', 'bash', { command: '/usr/bin/grep -r login .' }],
  ['command', 'bash', { command: 'command grep -r login .' }],
  ['nice', 'bash', { command: 'nice -n 5 grep -r login .' }],
  ['timeout', 'bash', { command: 'timeout 5 grep -r login .' }],
  ['eval', 'bash', { command: "eval 'grep -r login .'" }],
  ['dir -R', 'bash', { command: 'dir -R' }],
  ['rgrep', 'bash', { command: 'rgrep login' }],
  ['a glob across modules (grep)', 'bash', { command: 'grep login src/*/index.ts' }],
  ['a glob across modules (cat)', 'bash', { command: 'cat packages/*/src/*.ts' }],
  ['git log --name-only', 'bash', { command: 'git log --name-only' }],
  ['git grep after a global option', 'bash', { command: 'git -c color.ui=never grep login' }],
  ['grep_search', 'grep_search', { query: 'login' }],
  ['codebase_search', 'codebase_search', { query: 'where is login' }],
  ['file_search', 'file_search', { query: 'login' }],
  ['search_file_content', 'search_file_content', { pattern: 'login' }],
];

describe('module-router: the ways around it (issue 21 §4)', () => {
  it.each(WAYS)('refuses a cross-module search through %s', async (_way, toolName, toolArgs) => {
    expect(await firstCall(toolName, toolArgs)).toMatchObject(refused);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['env and a path', 'bash', { command: '/usr/bin/env timeout 5 nice grep -r login .' }],
    ['xargs', 'bash', { command: 'echo login | xargs grep -r' }],
    ['a program only known when it runs', 'bash', { command: '$GREP -r login .' }],
    ['eval of a variable', 'bash', { command: 'eval "$SEARCH"' }],
    ['env with an option it does not know', 'bash', { command: 'env -S "grep -r" login .' }],
    ['a runner the analysis does not follow', 'bash', { command: 'nohup grep -r login . &' }],
    ['grep -r over a glob of modules', 'bash', { command: 'grep -r login src/*' }],
    ['a brace expansion of modules', 'bash', { command: 'cat src/{auth,billing}/index.ts' }],
    ['a folder that holds modules', 'bash', { command: 'grep -rn login src' }],
    ['glob tool across modules', 'glob', { pattern: 'src/*/index.ts' }],
    ['glob tool climbing out of its path', 'glob', { pattern: '../../**/*.ts', path: 'src/auth' }],
    ['git whatchanged', 'bash', { command: 'git whatchanged' }],
    ['git log -S', 'bash', { command: 'git log -S login --oneline' }],
    ['vdir -R', 'bash', { command: 'vdir -R src' }],
    ['Gemini read_many_files', 'read_many_files', { paths: ['**/*.ts'] }],
    ['Cursor list_dir of the root', 'list_dir', { relative_workspace_path: '.' }],
    ['a tool name in another case', 'Grep_Search', { query: 'login' }],
    ['one search over two modules', 'bash', { command: 'grep -rn login src/auth src/billing' }],
    ['a tool over two modules', 'grep', { pattern: 'login', paths: ['src/auth', 'packages/web'] }],
  ])('also refuses %s', async (_way, toolName, toolArgs) => {
    expect(await firstCall(toolName, toolArgs)).toMatchObject(refused);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['env grep inside a module', 'bash', { command: 'env grep -rn login src/auth' }],
    ['timeout rg inside a module', 'bash', { command: 'timeout 5 rg login src/auth' }],
    ['eval of a search inside a module', 'bash', { command: "eval 'grep -r login src/auth'" }],
    ['a glob inside one module', 'bash', { command: 'cat src/auth/*.ts' }],
    ['a glob below a module', 'bash', { command: 'grep login packages/core/*/a.ts' }],
    ['git log of one module', 'bash', { command: 'git log --name-only -- src/auth' }],
    ['plain git log', 'bash', { command: 'git log --oneline -5' }],
    ['glob tool inside a module', 'glob', { pattern: '**/*.ts', path: 'packages/web' }],
    ['grep_search inside a module', 'grep_search', { query: 'login', path: 'src/auth' }],
    ['a program that is no search', 'bash', { command: 'npm test' }],
    [
      'two folders of one module',
      'bash',
      { command: 'grep -rn login packages/core/src packages/core' },
    ],
    ['a search in each of two commands', 'bash', { command: 'rg x src/auth; rg y src/billing' }],
  ])('lets %s through', async (_way, toolName, toolArgs) => {
    expect((await firstCall(toolName, toolArgs)).blocked).toBe(false);
  });
});

/** The routing file counts as read only when a call showed its text (post_tool_call, ok). */
describe('module-router: a read of the routing file counts once it has shown the file', () => {
  const search = () => toolCall('grep', { pattern: 'login' });
  const read = () => toolCall('read', { path: 'docs/MODULES.md' });

  async function conversation(
    root: string,
    calls: ReturnType<typeof toolCall>[],
    tools: Record<string, { execute: (args: Record<string, unknown>) => unknown }>,
    extensions: Extensions = [moduleRouter],
  ) {
    const runtime = await routed(root, extensions);
    const model = scriptedModel([
      ...calls.map((call) => ({ content: '', toolCalls: [call] })),
      { content: 'done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'where is login?',
      systemPrompt: '',
      model,
      tools: { grep: { execute: () => 'src/auth/index.ts:1' }, ...tools },
    });
    return result.toolCalls.map((c) => [c.name, c.blocked]);
  }
  const readsAs = (text: unknown) => ({ read: { execute: () => text } });

  it('a read that showed the file: the search then runs', async () => {
    const calls = await conversation(project(), [search(), read(), search()], readsAs(ROUTING));
    expect(calls).toEqual([
      ['grep', true],
      ['read', false],
      ['grep', false],
    ]);
  });

  it('a read another extension refused does not count', async () => {
    const denier = defineExtension({
      name: 'denier',
      setup(hermes) {
        hermes.on('intercept_tool_call', () => block('no reading today'), {
          phase: 'validate',
          priority: 50,
          tools: 'read',
        });
      },
    });
    const calls = await conversation(project(), [read(), search()], readsAs(ROUTING), [
      moduleRouter,
      denier,
    ]);
    expect(calls).toEqual([
      ['read', true],
      ['grep', true],
    ]);
  });

  it('a read that failed does not count', async () => {
    const failing = {
      read: {
        execute: () => {
          throw new Error('EACCES');
        },
      },
    };
    expect(await conversation(project(), [read(), search()], failing)).toEqual([
      ['read', false],
      ['grep', true],
    ]);
  });

  it.each([
    ['printed nothing', ''],
    ['printed an error as its result', 'Error: file not found'],
  ])('a read that %s does not count', async (_l, text) => {
    expect(await conversation(project(), [read(), search()], readsAs(text))).toEqual([
      ['read', false],
      ['grep', true],
    ]);
  });

  it('a shell read whose output went elsewhere does not count', async () => {
    const shell = { bash: { execute: () => '' } };
    const calls = await conversation(
      project(),
      [toolCall('bash', { command: 'cat docs/MODULES.md > /dev/null' }), search()],
      shell,
    );
    expect(calls).toEqual([
      ['bash', false],
      ['grep', true],
    ]);
  });

  it('an empty routing file: no read counts, and the refusal says the file is empty', async () => {
    const root = project('');
    const runtime = await routed(root);
    const model = scriptedModel([
      { content: '', toolCalls: [read()] },
      { content: '', toolCalls: [search()] },
      { content: 'done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'x',
      systemPrompt: '',
      model,
      tools: { read: { execute: () => '' }, grep: { execute: () => '' } },
    });
    expect(result.toolCalls.map((c) => c.blocked)).toEqual([false, true]);
    expect(result.toolCalls[1]?.result).toMatch(/docs\/MODULES\.md is empty/);
  });

  it('a read that was only intercepted, never reported as run, does not count', async () => {
    const runtime = await routed(project());
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.interceptToolCall({
        toolName: 'read',
        toolArgs: { path: 'docs/MODULES.md' },
        toolCallId: 'r1',
      });
      const grep = await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } });
      expect(grep).toMatchObject(refused);
    });
  });

  it('a host that reports the read without its result: not counted (fail closed)', async () => {
    const runtime = await routed(project());
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.interceptToolCall({
        toolName: 'read',
        toolArgs: { path: 'docs/MODULES.md' },
        toolCallId: 'r1',
      });
      runtime.emit('post_tool_call', { session_id: 's', tool_call_id: 'r1', status: 'ok' });
      const grep = await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } });
      expect(grep).toMatchObject(refused);
      // A read reported with the file's text counts.
      await turn.interceptToolCall({
        toolName: 'read',
        toolArgs: { path: 'docs/MODULES.md' },
        toolCallId: 'r2',
      });
      runtime.emit('post_tool_call', {
        session_id: 's',
        tool_call_id: 'r2',
        status: 'ok',
        result: ROUTING,
      });
      expect(
        (await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } })).blocked,
      ).toBe(false);
    });
  });

  it('a result for a call that did not read the routing file does not count', async () => {
    const runtime = await routed(project());
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.interceptToolCall({
        toolName: 'read',
        toolArgs: { path: 'src/auth/index.ts' },
        toolCallId: 'r1',
      });
      runtime.emit('post_tool_call', {
        session_id: 's',
        tool_call_id: 'r1',
        status: 'ok',
        result: ROUTING,
      });
      const grep = await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } });
      expect(grep).toMatchObject(refused);
    });
  });

  it.each([
    ['counts', ROUTING, false],
    ['does not count', 'Error: EACCES', true],
  ])(
    'a read whose result only comes with the next model request (a command hook) %s by that result',
    async (_l, printed, refusedAfter) => {
      const runtime = await routed(project());
      await runtime.runTurn({ sessionId: 's' }, async (turn) => {
        await turn.interceptToolCall({
          toolName: 'read',
          toolArgs: { path: 'docs/MODULES.md' },
          toolCallId: 'r1',
        });
        await turn.beforeLlmCall({
          systemPrompt: '',
          messages: [
            { role: 'user', content: 'where is login?' },
            { role: 'tool', content: printed, toolCallId: 'r1', name: 'read' },
          ],
        });
        const grep = await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } });
        expect(grep).toMatchObject(
          refusedAfter
            ? { blocked: true, message: expect.stringMatching(/in this turn did not count/) }
            : { blocked: false },
        );
      });
    },
  );
});
