import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { write } from '../support/fixtures.js';
import { type ScriptedToolCall, startFakeChatCompletions } from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  hermesPrompt,
  hermesSetup,
  toolResults,
} from './hermes-agent-setup.js';
import { noTmpExtension } from './setup.js';

// The real Hermes agent (`hermes -z`, 0.19.0) with the shell hooks `hermes hook install
// hermes-agent` wrote: what runs must be what the extensions judged. Hermes 0.19.0 takes only a
// block from a shell hook's pre_tool_call (agent/shell_hooks.py, `_parse_response`), so the hook
// refuses what it cannot have run as judged: a rewritten call, and a terminal call without an
// absolute `workdir` (Hermes runs it where an earlier `cd` left the terminal).

describeRealHermes(
  'the real Hermes agent’s shell hooks: calls run as they were judged, or are refused',
  (hermes) => {
    it('a terminal call without workdir is refused and its retry with the folder runs there; a call an extension rewrote is refused and changes nothing', async () => {
      // The model's calls; the folder it is told to name is the project's, known once it is made.
      const cd: ScriptedToolCall = { name: 'terminal', args: { command: 'cd src' } };
      const retry: ScriptedToolCall = {
        name: 'terminal',
        args: { command: 'echo pinned > plans/notes.md' },
      };
      const rewritten: ScriptedToolCall = {
        name: 'terminal',
        args: { command: 'echo fixed > plans/draft.tmp' },
      };
      const model = await startFakeChatCompletions([
        cd,
        { name: 'terminal', args: { command: 'echo pinned > plans/notes.md' } },
        retry,
        rewritten,
      ]);
      const env = await hermesSetup(model, 'shell hooks', { 'no-tmp': noTmpExtension });
      for (const call of [cd, retry, rewritten]) call.args.workdir = env.project;
      write(env.project, { 'plans/.keep': '', 'src/plans/.keep': '' });
      const run = await hermesPrompt(hermes, env, 'write the notes');
      const why = evidence(env, run, model);
      expect(run.code, why).toBe(0);
      const results = toolResults(model);
      // The `cd` ran: Hermes' terminal is now in src/ for a call that names no folder.
      expect(results.call_0, why).not.toMatch(/refused/);
      // Hermes hands the model a block's message as `{"error": message}`.
      const refusal = (id: string) => String(JSON.parse(results[id] ?? '{}').error);
      expect(refusal('call_1'), why).toContain(`"workdir": ${JSON.stringify(env.project)}`);
      expect(existsSync(join(env.project, 'src/plans/notes.md')), why).toBe(false);
      expect(readFileSync(join(env.project, 'plans/notes.md'), 'utf8'), why).toBe('pinned\n');
      expect(refusal('call_3'), why).toMatch(/^no-tmp rewrote this call.*plans\/draft\.md/);
      expect(refusal('call_3'), why).toContain('hermes hook install hermes-agent --plugin');
      for (const file of ['plans/draft.tmp', 'plans/draft.md', 'src/plans/draft.tmp'])
        expect(existsSync(join(env.project, file)), `${file}\n${why}`).toBe(false);
    });
  },
);
