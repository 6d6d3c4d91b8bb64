import { describe, expect, it } from 'vitest';
import { COMMAND_HOOK_AGENTS } from '../../../src/host/command-hook/agents.js';
import { answerHookProcess } from '../../../src/host/command-hook/hook-process.js';
import { memoryLogger } from '../../../src/testing/index.js';

function io(stdin: AsyncIterable<string>) {
  const out: string[] = [];
  const exits: number[] = [];
  return {
    out,
    exits,
    io: {
      stdin,
      out: (text: string) => out.push(text),
      err: () => {},
      logger: memoryLogger(),
      exit: (code: number) => exits.push(code),
    },
  };
}

describe('one hook process', () => {
  it('denies when stdin breaks while it is read (it may have been a tool call)', async () => {
    const broken = (async function* () {
      yield '{"hook_event_name":"PreTo';
      throw new Error('EIO: i/o error, read');
    })();
    const run = io(broken);
    const code = await answerHookProcess(COMMAND_HOOK_AGENTS.codex, run.io, 10_000);
    expect(code).toBe(0);
    expect(JSON.parse(run.out[0] as string).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('stdin could not be read: EIO'),
    });
  });

  it('answers at the deadline when stdin never ends, and ends the process', async () => {
    const never = (async function* () {
      yield '{"hook_event_name":"PreToolUse"}';
      await new Promise(() => {});
    })();
    const run = io(never);
    await answerHookProcess(COMMAND_HOOK_AGENTS['claude-code'], run.io, 50);
    expect(run.exits).toEqual([0]);
    expect(JSON.parse(run.out[0] as string).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('did not decide within 0.1 s'),
    });
  });
});
