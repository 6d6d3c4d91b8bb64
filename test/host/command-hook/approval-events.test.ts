import { ask, createRuntime, type ObserverPayload } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { runCommandHook } from '../../../src/host/command-hook/run-hook.js';
import type { RuntimeSource } from '../../../src/host/command-hook/runtime-source.js';
import { tree } from '../../support/fixtures.js';
import { ext } from '../../support/helpers.js';

/**
 * A command hook answers an ask with the agent's own "ask": the agent asks the person and the
 * framework never learns the answer, so only the request is told.
 */
async function preToolUse(agent: typeof claudeCode) {
  const events: ObserverPayload[] = [];
  const runtime = await createRuntime({
    logger: memoryLogger(),
    extensions: [
      ext('careful', (h) =>
        h.on('intercept_tool_call', () => ask('deletes files'), { tools: 'bash' }),
      ),
      ext('recorder', (h) => h.observe('*', (p) => void events.push(p))),
    ],
  });
  const runtimes: RuntimeSource = { acquire: async () => runtime, release: async () => {} };
  const home = tree();
  const answer = await runCommandHook(
    agent,
    JSON.stringify({
      session_id: 'hook-session',
      ...(agent === codex ? { turn_id: 'turn-1' } : {}),
      cwd: home,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      // One the protected-ground rule can read: it runs (and is asked about) as sent.
      tool_input: { command: 'mkdir build' },
      tool_use_id: 'toolu_1',
    }),
    { home, logger: memoryLogger(), runtimes },
  );
  await runtime.close();
  return { events, answer: JSON.parse(answer.stdout ?? '{}') };
}

const approvalEvents = (events: ObserverPayload[]) =>
  events.filter((e) => e.event === 'pre_approval_request' || e.event === 'post_approval_response');

describe('approval events of the command hooks', () => {
  it('Claude Code: the request goes out with the agent\'s "ask"; the answer is the agent\'s', async () => {
    const { events, answer } = await preToolUse(claudeCode);
    expect(answer.hookSpecificOutput.permissionDecision).toBe('ask');
    expect(approvalEvents(events)).toEqual([
      expect.objectContaining({
        event: 'pre_approval_request',
        session_id: 'hook-session',
        turn_id: expect.any(String),
        platform: 'claude-code',
        tool_name: 'bash',
        tool_call_id: 'toolu_1',
        command: 'mkdir build',
        description: 'deletes files',
        pattern_key: 'careful',
        pattern_keys: ['careful'],
        surface: 'agent',
        host: 'command_hook',
      }),
    ]);
  });

  it('Codex, which cannot ask: the call is refused and nobody is asked, so no approval event', async () => {
    const { events, answer } = await preToolUse(codex);
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(approvalEvents(events)).toEqual([]);
    expect(events.map((e) => e.event)).toContain('post_tool_call');
  });
});
