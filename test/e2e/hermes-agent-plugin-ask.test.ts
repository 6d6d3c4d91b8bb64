import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { write } from '../support/fixtures.js';
import { startFakeChatCompletions } from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  hermesPrompt,
  hermesSetup,
  toolResults,
} from './hermes-agent-setup.js';
import { askingExtension } from './setup.js';

// The real Hermes agent (`hermes -z`, 0.19.0) with its plugin: an extension's `ask` is Hermes'
// `{"action": "approve"}`, which sends the call to Hermes' approval gate. `hermes -z` (like
// `--yolo`) sets HERMES_YOLO_MODE, and the gate then approves everything without asking anyone
// (tools/approval.py, _run_approval_gate): a call an extension wanted a person to decide on
// would run unasked. Where nobody is asked, an ask must refuse the call, as under the shell hooks.

describeRealHermes('the real Hermes agent’s plugin: an ask where Hermes asks nobody', (hermes) => {
  it('under `hermes -z` (approvals bypassed) a call an extension asks about is refused, not run', async () => {
    const model = await startFakeChatCompletions([
      { name: 'terminal', args: { command: 'echo asked > plans/asked.md' } },
    ]);
    const env = await hermesSetup(model, 'plugin', { cautious: askingExtension });
    write(env.project, { 'plans/.keep': '' });
    const run = await hermesPrompt(hermes, env, 'write the notes');
    const why = evidence(env, run, model);
    expect(run.code, why).toBe(0);
    expect(
      existsSync(join(env.project, 'plans/asked.md')),
      `the asked-about call ran\n${why}`,
    ).toBe(false);
    expect(toolResults(model).call_0, why).toContain('shell writes are reviewed');
  });
});
