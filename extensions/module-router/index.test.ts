import { createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import moduleRouter from './index.js';

function project(withRouting = true) {
  return tree({
    ...(withRouting ? { 'docs/MODULES.md': '# Modules\n- auth: src/auth\n' } : {}),
    'src/auth/login.ts': '',
  });
}

async function routed(root: string, config: Record<string, unknown> = {}) {
  const logger = memoryLogger();
  const runtime = await createRuntime({
    extensions: [moduleRouter],
    cwd: root,
    config: { extensions: { 'module-router': config } },
    logger,
  });
  return { runtime, logger };
}

type Runtime = Awaited<ReturnType<typeof createRuntime>>;
type Turn = Parameters<Parameters<Runtime['runTurn']>[1]>[0];

/** A call as a host runs it: intercepted, then reported with what it printed. */
async function ranCall(
  runtime: Runtime,
  turn: Turn,
  toolName: string,
  toolArgs: Record<string, unknown>,
  printed: string,
) {
  const toolCallId = `call-${toolName}-${JSON.stringify(toolArgs)}`;
  const outcome = await turn.interceptToolCall({ toolName, toolArgs, toolCallId });
  runtime.emit('post_tool_call', {
    session_id: turn.sessionId,
    tool_call_id: toolCallId,
    status: outcome.blocked ? 'blocked' : 'ok',
    result: printed,
  });
  return outcome;
}

const BROAD: Array<[string, string, Record<string, unknown>]> = [
  ['grep with no path', 'grep', { pattern: 'login' }],
  ['grep over .', 'grep', { pattern: 'login', path: '.' }],
  ['find at the root', 'find', { path: './', name: '*.ts' }],
  ['ls of the root', 'ls', { path: '' }],
  ['glob over everything', 'glob', { pattern: '**/*.ts' }],
  ['search above the project', 'search_files', { path: '..' }],
  ['shell grep -r', 'terminal', { command: 'grep -rn login .' }],
  ['shell rg without a path', 'terminal', { command: 'rg login' }],
  ['shell find', 'terminal', { command: 'find . -name "*.ts"' }],
  ['shell ls -R', 'bash', { command: 'ls -R' }],
  // Whole-tree searches the old word-splitting missed.
  ['git grep', 'bash', { command: 'git grep -n login' }],
  ['git ls-files', 'bash', { command: 'git ls-files' }],
  ['grep -d recurse', 'bash', { command: 'grep -d recurse login .' }],
  ['grep --directories=recurse', 'bash', { command: 'grep --directories=recurse login .' }],
  ['grep --dereference-recursive', 'bash', { command: 'grep --dereference-recursive login' }],
  ['grep -r over a glob', 'bash', { command: 'grep -r login *' }],
  ['grep -r over "$PWD"', 'bash', { command: 'grep -r login "$PWD"' }],
  ['rg over $(pwd)', 'bash', { command: 'rg login $(pwd)' }],
  ['du -a', 'bash', { command: 'du -a .' }],
  ['after a newline', 'bash', { command: 'echo start\ngrep -rn login .' }],
  ['inside a substitution', 'bash', { command: 'echo $(grep -rl login .)' }],
  ['inside bash -c', 'bash', { command: "bash -c 'grep -r login .'" }],
  ['inside sh -c inside bash -c', 'bash', { command: `bash -c "sh -c 'grep -r login .'"` }],
  ['from src up to the root', 'bash', { command: 'cd src && grep -r login ..' }],
  ['from above the project', 'bash', { command: 'cd .. && grep -r login .' }],
  ['in a workdir at the root', 'bash', { command: 'grep -r login .', workdir: '.' }],
  ['an argv', 'exec', { command: ['grep', '-r', 'login', '.'] }],
  ['a line the parser cannot read', 'bash', { command: 'grep -r login . |' }],
  ['a shell call that cannot be read', 'bash', { command: 'ls', env: { GREP_OPTIONS: '-r' } }],
];

const NARROW: Array<[string, string, Record<string, unknown>]> = [
  ['grep inside a module', 'grep', { pattern: 'login', path: 'src/auth' }],
  ['glob inside a module', 'glob', { pattern: 'src/auth/**/*.ts' }],
  ['shell grep in a module', 'terminal', { command: 'grep -rn login src/auth' }],
  ['non-recursive shell ls', 'terminal', { command: 'ls -la' }],
  ['shell grep after cd into a module', 'bash', { command: 'cd src/auth && grep -rn login .' }],
  ['shell grep in a module workdir', 'bash', { command: 'grep -rn login .', workdir: 'src/auth' }],
  ['git grep in a module', 'bash', { command: 'git grep -n login -- src/auth' }],
  ['grep -d skip', 'bash', { command: 'grep -d skip login *' }],
  ['reading a file', 'read', { path: 'src/auth/login.ts' }],
];

describe('module-router', () => {
  it.each(BROAD)(
    'blocks broad exploration before the routing file is read: %s',
    async (_l, toolName, toolArgs) => {
      const { runtime } = await routed(project());
      const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
        t.interceptToolCall({ toolName, toolArgs }),
      );
      expect(outcome).toMatchObject({
        blocked: true,
        blockedBy: 'module-router',
        message: expect.stringMatching(/Read docs\/MODULES\.md first/),
      });
    },
  );

  it.each(NARROW)('lets narrow exploration through: %s', async (_l, toolName, toolArgs) => {
    const { runtime } = await routed(project());
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName, toolArgs }),
    );
    expect(outcome.blocked).toBe(false);
  });

  it('allows broad exploration once the turn read the routing file, and forgets it next turn', async () => {
    const { runtime } = await routed(project());
    const grep = { toolName: 'grep', toolArgs: { pattern: 'login' } };
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect((await turn.interceptToolCall(grep)).blocked).toBe(true);
      await ranCall(runtime, turn, 'read', { path: './docs/../docs/MODULES.md' }, '# Modules');
      expect(turn.state['module-router']).toEqual({ routingRead: true, pending: [] });
      expect((await turn.interceptToolCall(grep)).blocked).toBe(false);
    });
    const nextTurn = await runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall(grep));
    expect(nextTurn.blocked).toBe(true);
  });

  it('counts reading the routing file through the shell', async () => {
    const { runtime } = await routed(project());
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await ranCall(
        runtime,
        turn,
        'terminal',
        { command: 'cat docs/MODULES.md' },
        '- auth: src/auth',
      );
      const outcome = await turn.interceptToolCall({
        toolName: 'terminal',
        toolArgs: { command: 'grep -r login .' },
      });
      expect(outcome.blocked).toBe(false);
    });
  });

  it('stays out of the way without a routing file, and says so once', async () => {
    const { runtime, logger } = await routed(project(false));
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      for (let i = 0; i < 3; i++) {
        expect(
          (await turn.interceptToolCall({ toolName: 'grep', toolArgs: { pattern: 'x' } })).blocked,
        ).toBe(false);
      }
    });
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message:
          '[hermes:module-router] no routing file at docs/MODULES.md: exploration is not restricted',
      },
    ]);
  });

  it('follows its config', async () => {
    const root = tree({ 'ROUTING.md': '# r' });
    const { runtime } = await routed(root, {
      routing_file: 'ROUTING.md',
      exploration_tools: ['codesearch'],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect((await turn.interceptToolCall({ toolName: 'grep', toolArgs: {} })).blocked).toBe(
        false,
      );
      expect((await turn.interceptToolCall({ toolName: 'codesearch', toolArgs: {} })).blocked).toBe(
        true,
      );
      await ranCall(runtime, turn, 'read_file', { file_path: 'ROUTING.md' }, '# r');
      expect((await turn.interceptToolCall({ toolName: 'codesearch', toolArgs: {} })).blocked).toBe(
        false,
      );
    });
  });

  it('in the reference loop: the search is blocked, the routing file read, the same search then runs', async () => {
    const { runtime } = await routed(project());
    const searches: unknown[] = [];
    const tools = {
      grep: {
        execute: (args: Record<string, unknown>) => {
          searches.push(args);
          return 'src/auth/login.ts:1';
        },
      },
      read: { execute: () => '# Modules' },
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('grep', { pattern: 'login' })] },
      { content: '', toolCalls: [toolCall('read', { path: 'docs/MODULES.md' })] },
      { content: '', toolCalls: [toolCall('grep', { pattern: 'login' })] },
      { content: 'Found it.' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'where is login?',
      systemPrompt: '',
      model,
      tools,
    });
    expect(result.toolCalls.map((c) => [c.name, c.blocked])).toEqual([
      ['grep', true],
      ['read', false],
      ['grep', false],
    ]);
    expect(searches).toHaveLength(1);
  });
});
