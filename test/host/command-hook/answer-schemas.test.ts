import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';
type Event = Record<string, unknown>;

/**
 * Every kind of answer `hermes hook <agent>` prints, held to what the agent accepts for that
 * event (test/support/agent-answers.ts): Codex drops a whole answer it does not accept and goes
 * on as if there were no hook, so a field too many would silently undo a deny or a block.
 */
const guards = tsExtension(
  'guards',
  `hermes.on('transform_user_input', (e) => e.userMessage.includes('forbidden') ? block('not that') : e.userMessage.startsWith('/') ? undefined : { action: 'rewrite', value: '/plan ' + e.userMessage });
   hermes.on('intercept_tool_call', (e) => String(e.toolArgs.command).includes('deploy') ? ask('deploys need a person') : undefined);
   hermes.on('intercept_tool_call', (e) => { const c = String(e.toolArgs.command); return c.includes('rm ') ? block('no rm') : c.includes('.tmp') ? { action: 'rewrite', value: { ...e.toolArgs, command: c.replace('.tmp', '.md') } } : undefined; });
   hermes.on('before_llm_call', (e) => e.messages.some((m) => m.content.includes('STOP')) ? block('stopped by policy') : injectSystem('Keep to the plan.'));`,
  `import { ask, injectSystem } from 'hermes-extensions';`,
);

/** How each agent answers a call the guards extension asks a person about. */
const asked = (agent: Agent, updatedInput?: Record<string, unknown>) => ({
  hookSpecificOutput:
    agent === 'codex'
      ? {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason:
            'needs approval: deploys need a person (asked by guards); Codex hooks cannot ask a person, so the call is refused',
        }
      : {
          hookEventName: 'PreToolUse',
          permissionDecision: 'ask',
          permissionDecisionReason: 'needs approval: deploys need a person (asked by guards)',
          ...(updatedInput === undefined ? {} : { updatedInput }),
        },
});

interface Case {
  name: string;
  /** Files of the Hermes home (default: the guards extension). */
  home?: Record<string, string>;
  /** Files of the project. */
  project?: Record<string, string>;
  events: (e: Events) => Event[];
  /** What the last answer holds (undefined: nothing printed). */
  last: (agent: Agent) => Record<string, unknown> | undefined;
}

interface Events {
  prompt(text: string): Event;
  bash(command: string): Event;
  /** The PreToolUse of the call `afterTool` reports the result of. */
  decide(): Event;
  afterTool(output: string): Event;
  stop(): Event;
}

const cases: Case[] = [
  { name: 'allow (no decision)', events: (e) => [e.bash('ls')], last: () => undefined },
  {
    name: 'deny',
    events: (e) => [e.bash('rm -rf src')],
    last: () => ({ hookSpecificOutput: expect.objectContaining({ permissionDecision: 'deny' }) }),
  },
  {
    // Claude Code's own permission flow judges the rewritten call; Codex takes a rewrite only
    // with allow.
    name: 'rewrite',
    events: (e) => [e.bash('cat a.tmp')],
    last: (agent) => ({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        ...(agent === 'codex' ? { permissionDecision: 'allow' } : {}),
        updatedInput: { command: 'cat a.md' },
      },
    }),
  },
  // Commands the protected-ground rule can read, so its sandbox leaves them as they are.
  { name: 'ask', events: (e) => [e.bash('echo deploy app')], last: (agent) => asked(agent) },
  {
    name: 'ask about a rewritten call',
    events: (e) => [e.bash('echo deploy a.tmp')],
    last: (agent) => asked(agent, { command: 'echo deploy a.md' }),
  },
  {
    name: 'ask, then a later block',
    events: (e) => [e.bash('deploy && rm -rf build')],
    last: () => ({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no rm',
      },
    }),
  },
  {
    name: 'prompt block',
    events: (e) => [e.prompt('the forbidden thing')],
    last: () => ({ decision: 'block', reason: 'not that' }),
  },
  {
    name: 'prompt rewrite and injection as context',
    events: (e) => [e.prompt('tidy up')],
    last: () => ({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: expect.stringMatching(
          /treat it as: \/plan tidy up\n\nKeep to the plan\./,
        ),
      },
    }),
  },
  {
    name: 'injection after a tool result',
    events: (e) => [e.prompt('/go'), e.afterTool('done')],
    last: () => ({
      hookSpecificOutput: expect.objectContaining({ additionalContext: 'Keep to the plan.' }),
    }),
  },
  {
    name: 'block after a tool result',
    events: (e) => [e.prompt('/go'), e.decide(), e.afterTool('STOP')],
    last: (agent) =>
      agent === 'codex'
        ? { continue: false, stopReason: 'stopped by policy' }
        : { decision: 'block', reason: 'stopped by policy' },
  },
  {
    name: 'notice (untrusted project) on a rewrite',
    project: { '.hermes/extensions/local.ts': tsExtension('local') },
    events: (e) => [e.bash('cat a.tmp')],
    last: () => ({
      systemMessage: expect.stringMatching(/not running/),
      hookSpecificOutput: expect.objectContaining({ updatedInput: { command: 'cat a.md' } }),
    }),
  },
  {
    name: 'failure at a prompt',
    home: { 'config.yaml': 'extensions: [unclosed\n' },
    events: (e) => [e.prompt('tidy up')],
    last: () => ({ systemMessage: expect.stringContaining('config.yaml') }),
  },
  {
    name: 'failure at a tool call',
    home: { 'config.yaml': 'extensions: [unclosed\n' },
    events: (e) => [e.bash('ls')],
    last: () => ({ hookSpecificOutput: expect.objectContaining({ permissionDecision: 'deny' }) }),
  },
  {
    name: 'failure after a tool result',
    home: { 'config.yaml': 'extensions: [unclosed\n' },
    events: (e) => [e.afterTool('done')],
    last: () => ({ systemMessage: expect.stringContaining('config.yaml') }),
  },
  { name: 'stop', events: (e) => [e.prompt('/go'), e.stop()], last: () => undefined },
];

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s answers what the agent accepts',
  { timeout: 60_000 },
  (agent) => {
    it.each(cases)('$name', async (c) => {
      const home = tree(c.home ?? { 'extensions/guards.ts': guards });
      const project = tree({ '.git/HEAD': '' });
      if (c.project) write(project, c.project);
      const base = {
        session_id: 'answers',
        ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : {}),
        cwd: project,
        permission_mode: 'default',
      };
      const result = { tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'c9' };
      const events: Events = {
        prompt: (prompt) => ({ ...base, hook_event_name: 'UserPromptSubmit', prompt }),
        bash: (command) => ({
          ...base,
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: 'c1',
        }),
        decide: () => ({ ...base, hook_event_name: 'PreToolUse', ...result }),
        afterTool: (output) =>
          agent === 'codex'
            ? { ...base, hook_event_name: 'PostToolUse', ...result, tool_response: output }
            : {
                ...base,
                hook_event_name: 'PostToolBatch',
                tool_calls: [{ ...result, tool_response: output }],
              },
        stop: () => ({ ...base, hook_event_name: 'Stop', stop_hook_active: false }),
      };
      let last: Record<string, unknown> | undefined;
      for (const event of c.events(events)) {
        const answer = await runHook(agent, home, event);
        expect(answer.code, answer.stderr).toBe(0);
        last = answer.stdout === '' ? undefined : JSON.parse(answer.stdout);
        if (last !== undefined) {
          const checked = answerSchema(agent, String(event.hook_event_name)).safeParse(last);
          expect(checked.error?.issues, JSON.stringify(last)).toBeUndefined();
        }
      }
      const expected = c.last(agent);
      if (expected === undefined) expect(last).toBeUndefined();
      else expect(last).toEqual(expected);
    });
  },
);

describe('the answer schemas', () => {
  it("refuse what Codex's parser refuses", () => {
    const pre = answerSchema('codex', 'PreToolUse');
    const hso = (o: Record<string, unknown>) => ({
      hookSpecificOutput: { hookEventName: 'PreToolUse', ...o },
    });
    expect(pre.safeParse(hso({ permissionDecision: 'ask' })).success).toBe(false);
    expect(pre.safeParse(hso({ permissionDecision: 'allow' })).success).toBe(false);
    expect(pre.safeParse(hso({ updatedInput: {} })).success).toBe(false);
    expect(pre.safeParse(hso({ permissionDecision: 'deny' })).success).toBe(false);
    expect(pre.safeParse({ continue: false }).success).toBe(false);
    expect(
      pre.safeParse({ ...hso({ permissionDecision: 'deny', permissionDecisionReason: 'r' }) })
        .success,
    ).toBe(true);
    const post = answerSchema('codex', 'PostToolUse');
    expect(post.safeParse({ reason: 'r' }).success).toBe(false);
    expect(post.safeParse({ decision: 'block' }).success).toBe(false);
    expect(post.safeParse({ suppressOutput: true }).success).toBe(false);
    expect(answerSchema('codex', 'UserPromptSubmit').safeParse({ extra: 1 }).success).toBe(false);
    expect(
      answerSchema('claude-code', 'PostToolBatch').safeParse({ decision: 'block', reason: 'r' })
        .success,
    ).toBe(true);
  });
});
