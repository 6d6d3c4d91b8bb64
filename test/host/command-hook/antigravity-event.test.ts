import { describe, expect, it } from 'vitest';
import { antigravity } from '../../../src/host/command-hook/agents/antigravity.js';

/**
 * What of an Antigravity event decides how it is judged: nothing the model writes into a call,
 * and nothing that would let the call pass unjudged.
 */
describe('an Antigravity event as the engine reads it', () => {
  const call = (extra: Record<string, unknown> = {}) => ({
    conversationId: 'conv',
    stepIdx: 3,
    toolCall: {
      name: 'run_command',
      args: { CommandLine: 'rm -rf /home/you/project/src', Cwd: '/tmp/elsewhere' },
    },
    workspacePaths: ['/home/you/project'],
    ...extra,
  });

  it('is in the workspace, whatever folder the call names: that folder picks no project', () => {
    const event = antigravity.readEvent(call()) as Record<string, unknown>;
    expect(event.cwd).toBe('/home/you/project');
    // The call's own folder is still where its command runs, as the guards judge it.
    const input = event.tool_input as Record<string, unknown>;
    const { toolArgs } = antigravity.toolIn('run_command', input, String(event.cwd));
    expect(toolArgs).toMatchObject({
      command: 'rm -rf /home/you/project/src',
      workdir: '/tmp/elsewhere',
    });
  });

  it('is a tool call whatever name it gives itself (only PreToolUse is installed)', () => {
    for (const name of ['PostToolUse', 'Stop', 'SomethingNew']) {
      const event = antigravity.readEvent(call({ hook_event_name: name })) as Record<
        string,
        unknown
      >;
      expect(event.hook_event_name).toBe('PreToolUse');
    }
  });
});
