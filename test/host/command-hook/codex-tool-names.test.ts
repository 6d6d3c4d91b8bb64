import { describe, expect, it } from 'vitest';
import { codex } from '../../../src/host/command-hook/agents.js';

// Codex 0.169 names a tool it offers in a namespace by gluing the namespace to the tool's name in
// its hook events (measured with the real binary): `collaborationspawn_agent` with
// `[features] multi_agent_v2`, `multi_agent_v1wait_agent` by default, while the default
// spawn_agent comes bare.
describe('codex tool names', () => {
  it.each([
    ['spawn_agent', 'spawn_agent'],
    ['collaborationspawn_agent', 'spawn_agent'],
    ['collaborationwait_agent', 'wait_agent'],
    ['collaborationsend_message', 'send_message'],
    ['multi_agent_v1wait_agent', 'wait_agent'],
    ['multi_agent_v1close_agent', 'close_agent'],
  ])('extensions see %s as %s, whichever subagent tools are on', (sent, seen) => {
    const input = { message: 'look at src/', task_name: 'reader' };
    expect(codex.toolIn(sent, input, '/p')).toEqual({ toolName: seen, toolArgs: input });
    // A rewrite goes back as arguments only: Codex keeps the call's own name.
    expect(codex.toolOut(sent, input, { message: 'other' })).toEqual({ message: 'other' });
  });

  it('leaves other names as sent (MCP tools, a namespace of no subagent tool)', () => {
    for (const name of ['mcp__files__read', 'collaboration', 'multi_agent_v1', 'web_search'])
      expect(codex.toolIn(name, {}, '/p').toolName).toBe(name);
  });
});
