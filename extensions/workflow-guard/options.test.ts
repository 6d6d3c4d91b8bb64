import { createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';

function project() {
  return tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '' });
}

// The analysis as a host without the sandbox meets it (`sandbox: off`); sandbox.test.ts runs the
// same kinds of calls with the sandbox on.
async function guarded(root: string, config: Record<string, unknown> = {}) {
  return createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': { sandbox: 'off', ...config } } },
    logger: memoryLogger(),
  });
}

async function decide(
  root: string,
  toolName: string,
  toolArgs: Record<string, unknown>,
  config: Record<string, unknown> = {},
) {
  const runtime = await guarded(root, config);
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

const OFFERED = [
  'read',
  'grep',
  'write',
  'apply_patch',
  'bash',
  'mcp__db__query',
  'task',
  'web_search',
];
const request = (tools?: readonly string[]) => ({
  systemPrompt: 'Agent.',
  messages: [{ role: 'user' as const, content: 'fix the app' }],
  ...(tools === undefined ? {} : { tools }),
});

describe('workflow-guard on_violation: ask', () => {
  const ASK = { on_violation: 'ask' };

  it('asks a person about a write it understands, with the block text and who may approve', async () => {
    const runtime = await guarded(project(), ASK);
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const outcome = await turn.interceptToolCall({
        toolName: 'write',
        toolArgs: { path: 'src/app.ts', content: 'x' },
      });
      expect(outcome.blocked).toBe(false);
      if (outcome.blocked) return;
      expect(outcome.ask).toEqual({
        askedBy: 'workflow-guard',
        message: `workflow-guard asks for approval: write would write src/app.ts, and no plan exists at ${PLAN}. A person may approve this call; otherwise write the plan at ${PLAN} first (writing under plans/, handoff/ is allowed), then make this change.`,
      });
      expect(turn.state['workflow-guard']).toMatchObject({ asked: 1, blocked: 0 });
    });
  });

  it('asks about a shell write it can read (a redirection, tee, mkdir)', async () => {
    for (const command of ['echo x > src/app.ts', 'echo x | tee src/b.ts', 'mkdir -p src/new']) {
      const outcome = await decide(project(), 'bash', { command }, ASK);
      expect(outcome).toMatchObject({ blocked: false, ask: { askedBy: 'workflow-guard' } });
    }
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a tool it does not know', 'mcp__db__query', { sql: 'drop table x' }],
    ['a command not shown to only read', 'bash', { command: 'make build' }],
    ['a file command it does not read', 'bash', { command: 'cp plans/a.md src/a.ts' }],
    ['an unparseable line', 'bash', { command: 'echo "unterminated' }],
    ['a shell call it cannot judge', 'bash', { command: 'ls', env: { PATH: '/tmp' } }],
    ['a writer naming no file', 'write', { content: 'x' }],
    ['a patch without file headers', 'patch', { patch: '@@ -1 +1 @@\n-a\n+b\n' }],
    ['a redirection from an unknown folder', 'bash', { command: 'cd "$X" && echo x > a' }],
  ])('still blocks what it cannot understand: %s', async (_label, toolName, toolArgs) => {
    const outcome = await decide(project(), toolName, toolArgs, ASK);
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'workflow-guard',
      message: expect.stringMatching(/^Blocked by workflow-guard: /),
    });
  });

  it('blocks by default', async () => {
    const outcome = await decide(project(), 'write', { path: 'src/app.ts' });
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
  });

  it('lets everything through once a plan exists, asking nothing', async () => {
    const root = project();
    write(root, { [PLAN]: '# Plan' });
    const outcome = await decide(root, 'write', { path: 'src/app.ts' }, ASK);
    expect(outcome).toEqual(expect.objectContaining({ blocked: false }));
    expect(outcome).not.toHaveProperty('ask');
  });
});

describe('workflow-guard hide_tools', () => {
  it('offers only tools a call of which could pass without a plan, and says why', async () => {
    const runtime = await guarded(project());
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.beforeLlmCall(request(OFFERED)),
    );
    expect(outcome.value.tools).toEqual([
      'read',
      'grep',
      'write',
      'apply_patch',
      'bash',
      'web_search',
    ]);
    expect(outcome.value.toolRestrictions).toEqual([
      {
        extension: 'workflow-guard',
        reason: `no plan exists at ${PLAN} yet: only tools that read or can write the plan are offered until it does`,
        hidden: ['mcp__db__query', 'task'],
      },
    ]);
  });

  it('refuses a hidden tool the model names anyway, and blocks it itself where nothing was hidden', async () => {
    const runtime = await guarded(project());
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.beforeLlmCall(request(OFFERED));
      const hidden = await turn.interceptToolCall({ toolName: 'task', toolArgs: { prompt: 'x' } });
      expect(hidden).toMatchObject({
        blocked: true,
        blockedBy: 'workflow-guard',
        message: expect.stringContaining('took it away for this request'),
      });
    });
    // A host that does not say which tools it offers: nothing is hidden, the guard still blocks.
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const llm = await turn.beforeLlmCall(request());
      expect(llm.value.tools).toBeUndefined();
      expect(llm.value.toolRestrictions).toBeUndefined();
      const call = await turn.interceptToolCall({ toolName: 'task', toolArgs: { prompt: 'x' } });
      expect(call).toMatchObject({
        blocked: true,
        blockedBy: 'workflow-guard',
        message: expect.stringContaining('task is not a tool known to only read'),
      });
    });
  });

  it('offers every tool once a plan exists', async () => {
    const root = project();
    write(root, { [PLAN]: '# Plan' });
    const runtime = await guarded(root);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.beforeLlmCall(request(OFFERED)),
    );
    expect(outcome.value.tools).toEqual(OFFERED);
    expect(outcome.value.toolRestrictions).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['hide_tools: false', { hide_tools: false }, OFFERED],
    ['unknown_tools: allow (every tool could pass)', { unknown_tools: 'allow' }, OFFERED],
    [
      'a tool the user says only reads',
      { read_only_tools: ['mcp__db__query'] },
      ['read', 'grep', 'write', 'apply_patch', 'bash', 'mcp__db__query', 'web_search'],
    ],
    [
      'on_violation: ask (unknown tools are still blocked)',
      { on_violation: 'ask' },
      ['read', 'grep', 'write', 'apply_patch', 'bash', 'web_search'],
    ],
  ])('follows its config: %s', async (_label, config, offered) => {
    const runtime = await guarded(project(), config);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.beforeLlmCall(request(OFFERED)),
    );
    expect(outcome.value.tools).toEqual(offered);
  });
});

describe('workflow-guard in the reference loop: ask and hide_tools', () => {
  it('offers the model no unknown tool, asks the person about a write, and runs it once approved', async () => {
    const root = project();
    const runtime = await guarded(root, { on_violation: 'ask' });
    const written: string[] = [];
    const tools = {
      read: { description: 'Read a file', execute: () => 'text' },
      write: {
        description: 'Write a file',
        execute: ({ path, content }: Record<string, unknown>) => {
          write(root, { [String(path)]: String(content) });
          written.push(String(path));
          return `wrote ${path}`;
        },
      },
      mcp__db__query: { description: 'Query the database', execute: () => 'rows' },
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('write', { path: 'src/app.ts', content: 'a' })] },
      { content: '', toolCalls: [toolCall('write', { path: 'src/b.ts', content: 'b' })] },
      { content: '', toolCalls: [toolCall('mcp__db__query', { sql: 'select 1' })] },
      { content: 'Done.' },
    ]);
    const asked: string[] = [];
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'what does the app export?',
      systemPrompt: 'Agent.',
      model,
      tools,
      approve: (request) => {
        asked.push(request.message);
        return asked.length === 1;
      },
    });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['read', 'write']);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/^workflow-guard asks for approval: write would write src\/app\.ts/);
    expect(result.toolCalls.map((call) => [call.name, call.blocked])).toEqual([
      ['write', false],
      ['write', true],
      ['mcp__db__query', true],
    ]);
    expect(result.toolCalls[2]?.blockedBy).toBe('workflow-guard');
    expect(written).toEqual(['src/app.ts']);
  });
});

describe('workflow-guard config validation', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['on_violation', { on_violation: 'warn' }, 'on_violation must be "block" or "ask"'],
    ['hide_tools', { hide_tools: 'yes' }, 'hide_tools must be true or false'],
    ['an absolute module root', { module_roots: ['/src'] }, 'must be relative to the project root'],
    ['a module root with ..', { module_roots: ['src/../lib'] }, 'a plain folder path'],
    ['the project root as a module root', { module_roots: ['./'] }, 'not the root itself'],
    [
      'a module root that is not a string',
      { module_roots: [3] },
      'a module root must be a folder name',
    ],
  ])(
    'rejects %s, saying what is wrong, and blocks until it is fixed',
    async (_label, config, error) => {
      const runtime = await guarded(project(), config);
      const [info] = runtime.extensions;
      expect(info).toMatchObject({ name: 'workflow-guard', status: 'error' });
      expect(info?.reason).toContain(error);
      expect(info?.reason).toContain('extensions.workflow-guard.');
      const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName: 'read', toolArgs: { path: 'src/app.ts' } }),
      );
      expect(outcome.blocked).toBe(true);
    },
  );

  it('takes module roots written with ./ and a trailing slash', async () => {
    const root = project();
    write(root, { [PLAN]: '# Plan' });
    const outcome = await decide(
      root,
      'bash',
      { command: 'mkdir src/payments' },
      {
        module_roots: ['./src/'],
      },
    );
    expect(outcome).toMatchObject({
      blocked: true,
      message: expect.stringContaining('src/payments under the module root src/'),
    });
  });
});
