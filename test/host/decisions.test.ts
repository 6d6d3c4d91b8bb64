import {
  block,
  createRuntime,
  type HookOutcomeReport,
  injectSystem,
  type ObserverPayload,
  rewrite,
  runConversation,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../support/helpers.js';

/**
 * A guard that decides on every hook (rewrites the prompt, injects before each model request,
 * blocks writes, lets reads through), and a recorder of the decisions observers are told.
 */
async function deciding() {
  const decisions: ObserverPayload[] = [];
  const runtime = await createRuntime({
    logger: memoryLogger(),
    extensions: [
      ext('shaper', (h) => {
        h.on('transform_user_input', (e) => rewrite(`${e.userMessage}!`));
        h.on('before_llm_call', () => injectSystem('be brief'));
        h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });
      }),
      ext('recorder', (h) => h.observe('hook_decision', (p) => void decisions.push(p))),
    ],
  });
  return { runtime, decisions };
}

const summary = (d: ObserverPayload) => [d.hook, d.tool_call_id ?? ''];

describe('hook_decision comes from the turn, once per decision, whatever the host', () => {
  it('runConversation: one per chain outcome that was not a plain pass', async () => {
    const { runtime, decisions } = await deciding();
    const reports: HookOutcomeReport[] = [];
    await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'go',
      systemPrompt: 'sys',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('read', {}, 'r1'), toolCall('write', {}, 'w1')] },
        { content: 'done' },
      ]),
      tools: { read: { execute: () => 'x' }, write: { execute: () => 'written' } },
      onHookOutcome: (report) => void reports.push(report),
    });
    const decided = reports.filter(
      (r) =>
        r.outcome.blocked || r.outcome.changed || r.outcome.trace.some((e) => e.action !== 'pass'),
    );
    expect(decided.map((r) => [r.hook, r.toolCall?.id ?? ''])).toEqual([
      ['transform_user_input', ''],
      ['before_llm_call', ''],
      ['intercept_tool_call', 'w1'],
      ['before_llm_call', ''],
    ]);
    expect(decisions.map(summary)).toEqual(decided.map((r) => [r.hook, r.toolCall?.id ?? '']));
  });

  it('a host of its own gets them without reporting anything, and a sync chain stays sync', async () => {
    const { runtime, decisions } = await deciding();
    await runtime.runTurn({ sessionId: 's', turnId: 't', platform: 'mine' }, (turn) => {
      const blocked = turn.interceptToolCall({
        toolName: 'write',
        toolArgs: { path: 'a' },
        toolCallId: 'c1',
      });
      expect(blocked).not.toBeInstanceOf(Promise);
      expect(blocked).toMatchObject({ blocked: true, blockedBy: 'shaper' });
      // A read passes: no decision.
      turn.interceptToolCall({ toolName: 'read', toolArgs: {}, toolCallId: 'c2' });
    });
    expect(decisions).toEqual([
      expect.objectContaining({
        hook: 'intercept_tool_call',
        blocked: true,
        blocked_by: 'shaper',
        message: 'no writes',
        tool_call_id: 'c1',
        tool_name: 'write',
        session_id: 's',
        turn_id: 't',
        task_id: 't',
        platform: 'mine',
      }),
    ]);
  });

  it('an async chain reports its decision once it has settled', async () => {
    const decisions: ObserverPayload[] = [];
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('slow', (h) =>
          h.on('transform_user_input', async (e) => rewrite(e.userMessage.toUpperCase())),
        ),
        ext('recorder', (h) => h.observe('hook_decision', (p) => void decisions.push(p))),
      ],
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.transformUserInput('hi'),
    );
    expect(outcome.value).toBe('HI');
    expect(decisions.map((d) => [d.hook, d.changed, d.decided_by])).toEqual([
      ['transform_user_input', true, ['slow']],
    ]);
  });
});
