import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pauseAll, pauseFlagFile, resumeAll } from '../../src/config/pause.js';
import { PAUSE_POLL_MS } from '../../src/runtime/pause-switch.js';
import { tree } from '../support/fixtures.js';
import { blockedOutcome, ext, inTurn, runtimeOf } from '../support/helpers.js';

/**
 * The kill switch in an in-process runtime (docs/teams.md, Kill switch): a runtime already
 * running finds the flag within PAUSE_POLL_MS (it looks again on a timer, not at each call), refuses every call before any handler — a
 * reading one too — and lets them through again once it is lifted. Every host runs its tool
 * calls through `Turn.interceptToolCall`, which this drives.
 */
let home: string;
const before = process.env.HERMES_HOME;
beforeEach(() => {
  home = tree();
  process.env.HERMES_HOME = home;
});
afterEach(() => {
  if (before === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = before;
});

const read = { toolName: 'read', toolArgs: { path: 'a.md' } };

describe('the kill switch in a running runtime', () => {
  it('refuses every call while paused, naming who, why and how to lift it, before any handler', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('watcher', (hermes) => {
        hermes.on('intercept_tool_call', (event) => {
          seen.push(event.toolName);
        });
      }),
    ]);
    expect((await inTurn(runtime, (turn) => turn.interceptToolCall(read))).blocked).toBe(false);
    await pauseAll(home, 'incident 42');
    await sleep(3 * PAUSE_POLL_MS);
    const refused = blockedOutcome(await inTurn(runtime, (turn) => turn.interceptToolCall(read)));
    expect(refused.blockedBy).toBe('hermes');
    expect(refused.message).toContain('incident 42');
    expect(refused.message).toMatch(/extensions resume --all/);
    expect(refused.message).toContain(pauseFlagFile(home));
    expect(seen).toEqual(['read']);
    expect((await resumeAll(home)).lifted?.reason).toBe('incident 42');
    await sleep(3 * PAUSE_POLL_MS);
    expect((await inTurn(runtime, (turn) => turn.interceptToolCall(read))).blocked).toBe(false);
    await runtime.close();
  });

  it('a flag file it cannot read still pauses, and says why', async () => {
    writeFileSync(join(home, 'paused.json'), 'not json');
    // A runtime made now reads the flag at once, as a hook process does.
    const { runtime } = await runtimeOf([]);
    const refused = blockedOutcome(await inTurn(runtime, (turn) => turn.interceptToolCall(read)));
    expect(refused.message).toMatch(/flag file cannot be read/);
    await runtime.close();
  });
});
