import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pauseAll, resumeAll } from '../../src/config/pause.js';
import { block } from '../../src/index.js';
import { PAUSE_POLL_MS } from '../../src/runtime/pause-switch.js';
import { tree } from '../support/fixtures.js';
import { blockedOutcome, ext, inTurn, runtimeOf } from '../support/helpers.js';

/**
 * A runtime remembers the tool names whose calls need no chain (tool-call-gate.ts: no handler
 * for the name, and a tool the protected-ground rule does not judge), for every turn it runs.
 * What may change after the memo was filled — the kill switch, the tools a request offers, a
 * call the host could not judge — still decides each call; a tool with handlers, or one the rule
 * judges, is never answered from it.
 */
let home: string;
let root: string;
const before = process.env.HERMES_HOME;
beforeEach(() => {
  home = tree();
  root = tree({ '.git/HEAD': '', 'src/a.ts': 'export const a = 1;\n' });
  mkdirSync(join(root, '.hermes'), { recursive: true });
  process.env.HERMES_HOME = home;
});
afterEach(() => {
  if (before === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = before;
});

const read = { toolName: 'read', toolArgs: { path: 'src/a.ts' } };

describe("a runtime's memo of tools that need no chain", () => {
  it('still refuses every call once the kill switch is on, in a turn that filled it and in the next', async () => {
    const { runtime } = await runtimeOf([]);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let open: Parameters<Parameters<typeof inTurn>[1]>[0] | undefined;
    const done = runtime.runTurn({ sessionId: 'long' }, (turn) => {
      open = turn;
      return gate;
    });
    const turn = open as NonNullable<typeof open>;
    expect((await turn.interceptToolCall(read)).blocked).toBe(false);
    expect((await turn.interceptToolCall(read)).blocked).toBe(false);
    await pauseAll(home, 'incident 7');
    await sleep(3 * PAUSE_POLL_MS);
    expect(blockedOutcome(await turn.interceptToolCall(read)).message).toContain('incident 7');
    const next = await inTurn(runtime, (t) => t.interceptToolCall(read));
    expect(blockedOutcome(next).blockedBy).toBe('hermes');
    await resumeAll(home);
    await sleep(3 * PAUSE_POLL_MS);
    expect((await turn.interceptToolCall(read)).blocked).toBe(false);
    release();
    await done;
    await runtime.close();
  });

  it('serves every turn of the runtime, and a later request that no longer offers the tool still refuses it', async () => {
    const { runtime } = await runtimeOf([]);
    expect((await inTurn(runtime, (t) => t.interceptToolCall(read))).blocked).toBe(false);
    await inTurn(runtime, async (t) => {
      expect((await t.interceptToolCall(read)).blocked).toBe(false);
      await t.beforeLlmCall({ systemPrompt: '', messages: [], tools: ['grep'] });
      expect(blockedOutcome(await t.interceptToolCall(read)).message).toMatch(/not offered/);
      const cut = await t.interceptToolCall({
        toolName: 'grep',
        toolArgs: { pattern: 'x' },
        unjudgeable: 'its arguments were cut',
      });
      expect(blockedOutcome(cut).message).toBe('its arguments were cut');
    });
    // The restriction was the turn's: the next turn's calls are answered again.
    expect((await inTurn(runtime, (t) => t.interceptToolCall(read))).blocked).toBe(false);
    await runtime.close();
  });

  it("never holds a tool with a handler: a counting guard on one tool counts every call, beside another tool's calls answered at once", async () => {
    let counted = 0;
    const { runtime } = await runtimeOf([
      ext('budget', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            counted++;
            return counted > 3 ? block('budget spent') : undefined;
          },
          { tools: ['grep'] },
        ),
      ),
    ]);
    const grep = { toolName: 'grep', toolArgs: { pattern: 'x' } };
    const outcomes = await inTurn(runtime, async (t) => {
      const seen = [];
      for (let i = 0; i < 4; i++) {
        expect((await t.interceptToolCall(read)).blocked).toBe(false);
        seen.push(await t.interceptToolCall(grep));
      }
      return seen;
    });
    expect(counted).toBe(4);
    expect(outcomes.map((o) => o.blocked)).toEqual([false, false, false, true]);
    // A runtime loaded later with a handler on the tool the first one answered at once runs it.
    const seen: string[] = [];
    const { runtime: later } = await runtimeOf([
      ext('watcher', (h) =>
        h.on('intercept_tool_call', (event) => {
          seen.push(event.toolName);
        }),
      ),
    ]);
    await inTurn(later, async (t) => {
      await t.interceptToolCall(read);
      await t.interceptToolCall(read);
    });
    expect(seen).toEqual(['read', 'read']);
    await runtime.close();
    await later.close();
  });

  it('never holds a tool the protected-ground rule judges: a write into protected ground is refused every time', async () => {
    const { runtime } = await runtimeOf([], { cwd: root });
    const ok = { toolName: 'write', toolArgs: { path: 'src/a.ts', content: '' } };
    const config = { toolName: 'write', toolArgs: { path: '.hermes/config.yaml', content: '' } };
    await inTurn(runtime, async (t) => {
      for (let i = 0; i < 3; i++) {
        expect((await t.interceptToolCall(ok)).blocked).toBe(false);
        expect(blockedOutcome(await t.interceptToolCall(config)).message).toMatch(
          /protected ground/,
        );
      }
    });
    await runtime.close();
  });
});
