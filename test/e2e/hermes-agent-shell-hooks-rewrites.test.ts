import { expect, it } from 'vitest';
import { write } from '../support/fixtures.js';
import { startFakeChatCompletions } from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  expectRunAsJudged,
  hermesPrompt,
  hermesSetup,
  REWRITE_SCRIPT,
} from './hermes-agent-setup.js';
import { noTmpExtension } from './setup.js';

// The real Hermes agent (`hermes -z`, 0.19.0) with the shell hooks `hermes hook install
// hermes-agent` wrote: what runs must be what the extensions judged. The hook answers a rewrite
// of a call, and every terminal call (put in the folder it was judged in), with
// `{"action": "modify", "args"}`; Hermes 0.19.0 takes only a block from a shell hook's
// pre_tool_call (agent/shell_hooks.py, _parse_response), so the call it was asked to change
// runs as the model wrote it unless the hook refuses it.

describeRealHermes(
  'the real Hermes agent’s shell hooks: calls run as they were judged',
  (hermes) => {
    it('an intercept_tool_call rewrite is what runs, or the call is refused; a terminal command runs in the folder it was judged in', async () => {
      const model = await startFakeChatCompletions(REWRITE_SCRIPT);
      const env = await hermesSetup(model, 'shell hooks', { 'no-tmp': noTmpExtension });
      write(env.project, { 'plans/.keep': '', 'src/plans/.keep': '' });
      const run = await hermesPrompt(hermes, env, 'write the notes');
      const why = evidence(env, run, model);
      expect(run.code, why).toBe(0);
      expectRunAsJudged(env, why);
    });
  },
);
