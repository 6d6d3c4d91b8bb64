import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, defineExtension, type ExtensionDefinition } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built, root, runHook } from '../support/run-bin.js';

const quiet = { logger: memoryLogger() };

interface Tally {
  prompts: number;
  tools: string[];
}

/** Counts, in its turn slot, the prompts and the tool calls it sees; `made` counts `init` runs. */
function tallying(name: string, made: { count: number }): ExtensionDefinition {
  return defineExtension({
    name,
    setup(hermes) {
      const tally = hermes.turnState<Tally>(() => {
        made.count++;
        return { prompts: 0, tools: [] };
      });
      hermes.on('transform_user_input', (event) => {
        expectTypeOf(tally(event)).toEqualTypeOf<Tally>();
        tally(event).prompts++;
      });
      hermes.on('intercept_tool_call', (event) => {
        tally(event).tools.push(event.toolName);
      });
    },
  });
}

describe('hermes.turnState', () => {
  it('gives a typed slot under the extension name, made on first use and shared by every hook of the turn', async () => {
    const made = { count: 0 };
    const runtime = await createRuntime({ extensions: [tallying('tally', made)], ...quiet });
    const state = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect(turn.state).toEqual({});
      await turn.transformUserInput('hello');
      await turn.interceptToolCall({ toolName: 'read', toolArgs: {} });
      await turn.interceptToolCall({ toolName: 'write', toolArgs: {} });
      return { ...turn.state };
    });
    expect(state).toEqual({ tally: { prompts: 1, tools: ['read', 'write'] } });
    expect(made.count).toBe(1);
  });

  it('starts over every turn, and a turn that never asks has no slot', async () => {
    const made = { count: 0 };
    const runtime = await createRuntime({ extensions: [tallying('tally', made)], ...quiet });
    const seen: unknown[] = [];
    for (const tool of ['read', 'write']) {
      await runtime.runTurn({ sessionId: 's' }, async (turn) => {
        await turn.interceptToolCall({ toolName: tool, toolArgs: {} });
        seen.push(structuredClone(turn.state.tally));
      });
    }
    expect(seen).toEqual([
      { prompts: 0, tools: ['read'] },
      { prompts: 0, tools: ['write'] },
    ]);
    expect(made.count).toBe(2);
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.beforeLlmCall({ systemPrompt: '', messages: [] });
      expect(turn.state).toEqual({});
    });
    expect(made.count).toBe(2);
  });

  it('keeps each extension in its own slot, even one named like what every object inherits', async () => {
    const counts = { a: { count: 0 }, b: { count: 0 }, constructor: { count: 0 } };
    const runtime = await createRuntime({
      extensions: [
        tallying('a', counts.a),
        tallying('b', counts.b),
        tallying('constructor', counts.constructor),
      ],
      ...quiet,
    });
    const state = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.transformUserInput('hello');
      await turn.interceptToolCall({ toolName: 'grep', toolArgs: {} });
      return structuredClone(turn.state);
    });
    const tally = { prompts: 1, tools: ['grep'] };
    expect(state).toEqual({ a: tally, b: tally, constructor: tally });
    expect([counts.a.count, counts.b.count, counts.constructor.count]).toEqual([1, 1, 1]);
  });

  it('refuses an init that is not a function, as a registration error of the extension', async () => {
    const runtime = await createRuntime({
      extensions: [
        defineExtension({
          name: 'wrong',
          setup(hermes) {
            hermes.turnState({ prompts: 0 } as never);
          },
        }),
      ],
      config: { extensions: { on_load_error: 'warn' } },
      ...quiet,
    });
    expect(runtime.extensions).toMatchObject([
      {
        name: 'wrong',
        status: 'error',
        code: 'INVALID_REGISTRATION',
        reason: expect.stringMatching(/turnState\(init\): init must be a function/),
      },
    ]);
  });
});

describe.runIf(built)('hermes.turnState in hook mode', () => {
  it("keeps module-router's slot in the stored turn state, from one hook process to the next", async () => {
    const home = tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/module-router'))}]\n`,
    });
    const project = tree({ '.git/HEAD': '', 'docs/MODULES.md': '# Modules\n' });
    const base = { session_id: 'slot', transcript_path: '/dev/null', cwd: project };
    const hook = (event: Record<string, unknown>) =>
      runHook('claude-code', home, { ...base, ...event }, { HERMES_TRUST_PROJECT: '' });
    const grep = { hook_event_name: 'PreToolUse', tool_name: 'Grep', tool_input: { pattern: 'x' } };
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'where is the login code?' });
    const before = await hook(grep);
    expect(JSON.parse(before.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const readInput = { file_path: join(project, 'docs/MODULES.md') };
    const read = await hook({
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: readInput,
      tool_use_id: 'read-1',
    });
    expect(read).toEqual({ code: 0, stdout: '', stderr: '' });
    const slot = () =>
      JSON.parse(readFileSync(join(home, 'turns', 'slot.json'), 'utf8')).state['module-router'];
    // Asked for, not yet shown: the read counts once its result comes back.
    expect(slot()).toEqual({ routingRead: false, pending: ['read-1'] });
    expect(JSON.parse((await hook(grep)).stdout).hookSpecificOutput.permissionDecision).toBe(
      'deny',
    );
    await hook({
      hook_event_name: 'PostToolBatch',
      tool_calls: [
        {
          tool_name: 'Read',
          tool_input: readInput,
          tool_use_id: 'read-1',
          tool_response: { type: 'text', file: { content: '# Modules\n' } },
        },
      ],
    });
    expect(slot()).toEqual({ routingRead: true, pending: [] });
    expect(await hook(grep)).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 30_000);
});
