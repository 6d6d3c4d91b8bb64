import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { built, root, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';

/**
 * before_llm_call in hook mode: at the prompt (iteration 0) and after tool results (Claude Code's
 * PostToolBatch, Codex's PostToolUse), its injections reach the agent as additionalContext and a
 * block ends the turn the way the agent allows there.
 */
function setup(agent: Agent, extension = reminder) {
  const project = tree({ '.git/HEAD': '' });
  const seen = join(project, 'seen.jsonl');
  const loads = join(project, 'loads.txt');
  const home = tree({
    'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`,
    'extensions/reminder.ts': extension(seen, loads),
  });
  const base = {
    session_id: `${agent}-session`,
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd: project,
    permission_mode: 'default',
  };
  const prompt = (text: string) => ({ ...base, hook_event_name: 'UserPromptSubmit', prompt: text });
  const bashResult = (id: string, command: string, output: string) => ({
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
    tool_response: output,
  });
  /** The event after one tool result at which the agent takes context for its next request. */
  const afterTool = (id: string, command: string, output: string) =>
    agent === 'codex'
      ? { ...base, hook_event_name: 'PostToolUse', ...bashResult(id, command, output) }
      : {
          ...base,
          hook_event_name: 'PostToolBatch',
          tool_calls: [bashResult(id, command, output)],
        };
  return {
    home,
    project,
    base,
    prompt,
    afterTool,
    bashResult,
    seen: () => jsonLines(seen),
    ends: () => jsonLines(`${seen}.ends`),
    loads: () => (existsSync(loads) ? readFileSync(loads, 'utf8').length : 0),
    audit: () => jsonLines(join(project, '.hermes/audit/audit.jsonl')),
  };
}

/** Records each request it sees; reminds every time; blocks on "halt" in the prompt or STOP in a result. */
function reminder(seen: string, loads: string) {
  return tsExtension(
    'reminder',
    `appendFileSync(${JSON.stringify(loads)}, 'x');
    hermes.observe('on_session_end', (p) => appendFileSync(${JSON.stringify(`${seen}.ends`)}, JSON.stringify(p) + '\\n'));
    hermes.on('before_llm_call', (e) => {
      appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ iteration: e.iteration, model: e.model, systemPrompt: e.systemPrompt, messages: e.messages }) + '\\n');
      if (e.messages.some((m) => m.content.includes('halt') || (m.role === 'tool' && m.content.includes('STOP')))) return block('the reminder stops here');
      return injectSystem('Run the tests before you finish (request ' + e.iteration + ').');
    });`,
    `import { appendFileSync } from 'node:fs';\nimport { injectSystem } from 'hermes-extensions';`,
  );
}

/** No before_llm_call handler: only counts how often it is loaded. */
function loadCounter(_seen: string, loads: string) {
  return tsExtension(
    'reminder',
    `appendFileSync(${JSON.stringify(loads)}, 'x');`,
    `import { appendFileSync } from 'node:fs';`,
  );
}

async function ask(agent: Agent, home: string, event: Record<string, unknown>) {
  const answer = await runHook(agent, home, event);
  expect(answer.code, answer.stderr).toBe(0);
  if (answer.stdout === '') return undefined;
  const output = JSON.parse(answer.stdout) as Record<string, unknown>;
  // Every answer is one the agent accepts for that event.
  answerSchema(agent, String(event.hook_event_name)).parse(output);
  return output;
}

const context = (output: Record<string, unknown> | undefined) =>
  (output?.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext;

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s runs before_llm_call',
  { timeout: 60_000 },
  (agent) => {
    it('delivers a reminder at the prompt and after a tool result, numbering the requests', async () => {
      const { home, base, prompt, afterTool, bashResult, seen } = setup(agent);
      const first = await ask(agent, home, prompt('tidy up'));
      expect(first).toEqual({
        hookSpecificOutput: {
          hookEventName: 'UserPromptSubmit',
          additionalContext: 'Run the tests before you finish (request 0).',
        },
      });
      if (agent === 'claude-code') {
        // Claude Code's PostToolUse is one tool of a batch: the reminder waits for the batch.
        const single = {
          ...base,
          hook_event_name: 'PostToolUse',
          ...bashResult('c1', 'ls', 'src'),
        };
        expect(await ask(agent, home, single)).toBeUndefined();
      }
      const second = await ask(agent, home, afterTool('c1', 'ls', 'src\n'));
      const event = agent === 'codex' ? 'PostToolUse' : 'PostToolBatch';
      expect(second).toEqual({
        hookSpecificOutput: {
          hookEventName: event,
          additionalContext: 'Run the tests before you finish (request 1).',
        },
      });
      expect(context(await ask(agent, home, afterTool('c2', 'pwd', '/x\n')))).toBe(
        'Run the tests before you finish (request 2).',
      );

      const requests = seen();
      expect(requests.map((r) => r.iteration)).toEqual([0, 1, 2]);
      expect(requests[0]).toEqual({
        iteration: 0,
        systemPrompt: '',
        messages: [{ role: 'user', content: 'tidy up' }],
        ...(agent === 'codex' ? { model: 'gpt-5.5' } : {}),
      });
      // After a tool: the prompt, the call as extensions name it, and its result.
      expect(requests[1]?.messages).toEqual([
        { role: 'user', content: 'tidy up' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'ls', workdir: base.cwd } }],
        },
        { role: 'tool', content: 'src\n', toolCallId: 'c1', name: 'bash' },
      ]);
    });

    it('ends the turn on a block after a tool result, the way the agent allows there', async () => {
      const { home, base, prompt, afterTool, audit, ends } = setup(agent);
      await ask(agent, home, prompt('tidy up'));
      // The call was decided: nothing to tell of unchecked calls when the block ends the turn.
      const make = { tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'c1' };
      await ask(agent, home, { ...base, hook_event_name: 'PreToolUse', ...make });
      const stopped = await ask(agent, home, afterTool('c1', 'make', 'STOP'));
      expect(stopped).toEqual(
        agent === 'codex'
          ? { continue: false, stopReason: 'the reminder stops here' }
          : { decision: 'block', reason: 'the reminder stops here' },
      );
      expect(await ask(agent, home, { ...base, hook_event_name: 'Stop' })).toBeUndefined();
      // The turn ended with the block, and is reported ended once.
      expect(ends()).toEqual([expect.objectContaining({ reason: 'blocked', completed: true })]);
      const decisions = audit().filter((line) => line.hook === 'before_llm_call');
      expect(decisions.at(-1)).toMatchObject({ blocked: true, blocked_by: 'reminder' });
    });

    it('ends the turn on a block at the prompt', async () => {
      const { home, prompt } = setup(agent);
      expect(await ask(agent, home, prompt('halt and catch fire'))).toEqual({
        decision: 'block',
        reason: 'the reminder stops here',
      });
    });

    it('loads no extension after a tool result when nobody handles before_llm_call', async () => {
      const { home, prompt, afterTool, loads } = setup(agent, loadCounter);
      await ask(agent, home, prompt('tidy up'));
      const atPrompt = loads();
      expect(atPrompt).toBeGreaterThan(0);
      // audit-log observes post_tool_call, so Codex's PostToolUse still loads to report it.
      expect(await ask(agent, home, afterTool('c1', 'ls', 'src'))).toBeUndefined();
      expect(loads()).toBe(agent === 'codex' ? atPrompt * 2 : atPrompt);
    });
  },
);

/**
 * Restricts the tools, by a predicate (which needs the offered tools, and hook mode has none: a
 * handler error, fail-open) and by names; records what the handler after them saw; reminds.
 */
function restricter(seen: string, _loads: string) {
  return tsExtension(
    'restricter',
    `hermes.on('before_llm_call', () => restrictTools((name) => name !== 'bash'), { priority: 10 });
    hermes.on('before_llm_call', () => restrictTools(['read', 'grep'], 'read-only until planned'), { priority: 20 });
    hermes.on('before_llm_call', (e) => {
      appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ iteration: e.iteration, tools: e.tools ?? null }) + '\\n');
      return injectSystem('Plan first.');
    }, { priority: 30 });`,
    `import { appendFileSync } from 'node:fs';\nimport { injectSystem, restrictTools } from 'hermes-extensions';`,
  );
}

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s, restrictTools in before_llm_call',
  { timeout: 60_000 },
  (agent) => {
    it('breaks nothing: the agent offers its tools as ever, and a call to a tool a request hid is checked by the handlers only', async () => {
      const { home, base, prompt, afterTool, seen } = setup(agent, restricter);
      expect(context(await ask(agent, home, prompt('tidy up')))).toBe('Plan first.');
      // The agent does not say which tools it offers: the names kept become the request's tools,
      // which later handlers see.
      expect(seen()).toEqual([{ iteration: 0, tools: ['read', 'grep'] }]);
      // The agent cannot be told to offer fewer tools, so refusing a call to one it still offered
      // would refuse what the model was allowed to see: no decision.
      const call = await ask(agent, home, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'c1',
      });
      expect(call).toBeUndefined();
      expect(context(await ask(agent, home, afterTool('c1', 'ls', 'ok')))).toBe('Plan first.');
    });
  },
);

describe.runIf(built)('hermes hook, a before_llm_call rewrite of the messages', () => {
  it('is not applied, and the user is told so once a session', async () => {
    const rewriter = (_seen: string, _loads: string) =>
      tsExtension(
        'rewriter',
        `hermes.on('before_llm_call', () => ({ action: 'rewrite', value: { messages: [{ role: 'user', content: 'something else' }] } }));`,
      );
    const { home, prompt, afterTool } = setup('claude-code', rewriter);
    const first = await ask('claude-code', home, prompt('tidy up'));
    expect(context(first)).toBeUndefined();
    expect(first?.systemMessage).toMatch(
      /rewriter rewrote the messages of a model request \(before_llm_call\); hook mode cannot apply that/,
    );
    const second = await ask('claude-code', home, afterTool('c1', 'ls', 'src'));
    expect(second?.systemMessage).toBeUndefined();
  });
});
