import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tsExtension, write } from '../support/fixtures.js';
import { FINAL_TEXT, startFakeChatCompletions } from './fake-chat-completions-server.js';
import {
  describeRealHermes,
  evidence,
  hermesPrompt,
  hermesSetup,
  toolResults,
} from './hermes-agent-setup.js';
import { runAgent } from './setup.js';

// The real Hermes agent (`hermes -z`, pinned by test/real-agents/hermes-requirements.txt), offline
// against a scripted Chat Completions model on loopback, with the Python plugin
// `hermes hook install hermes-agent --plugin` put in its Hermes home. What the plugin does through
// Hermes' plugin hooks; what needs Hermes' middleware is in hermes-agent-middleware.test.ts.

const APP = 'export const app = "the app";\n';
// Not shaped like a key Hermes knows: Hermes masks those in tool output itself (`sk-…`), and the
// redaction tested here is the extension's.
const SECRET = 'hunter2-e2e-secret';

/** Redacts the key wherever a tool's result holds it. */
const REDACTOR = tsExtension(
  'redactor',
  `hermes.on('transform_tool_result', (e) => {
    const redacted = mapStrings(e.result, (s) => s.replaceAll(${JSON.stringify(SECRET)}, '[redacted]'));
    return redacted === e.result ? undefined : rewrite(redacted);
  });`,
  `import { mapStrings } from 'hermes-extensions/policy';\nimport { rewrite } from 'hermes-extensions';`,
);

describeRealHermes(
  'the real Hermes agent with its plugin (hermes hook install hermes-agent --plugin)',
  (hermes) => {
    it('workflow-guard refuses a shell write and a write_file before a plan, the files are unchanged, and a read passes', async () => {
      const model = await startFakeChatCompletions([
        { name: 'read_file', args: { path: 'src/app.ts' } },
        { name: 'terminal', args: { command: 'echo fixed > src/app.ts' } },
        { name: 'write_file', args: { path: 'src/login.ts', content: 'export {};\n' } },
      ]);
      const env = await hermesSetup(model, 'plugin');
      write(env.project, { 'src/app.ts': APP });
      const run = await hermesPrompt(hermes, env, 'fix the login bug');
      const why = evidence(env, run, model);
      expect(run.code, why).toBe(0);
      expect(run.stdout, why).toContain(FINAL_TEXT);
      expect(readFileSync(join(env.project, 'src/app.ts'), 'utf8')).toBe(APP);
      expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
      const results = toolResults(model);
      expect(results.call_0, why).toContain('the app');
      for (const refused of [results.call_1, results.call_2]) {
        expect(refused, why).toMatch(/Blocked by workflow-guard/);
        expect(refused, why).toMatch(/Write the plan at plans\/active\/plan\.md/);
      }
    });

    it('a secret in a read_file and a terminal result is redacted before the model server gets it', async () => {
      const model = await startFakeChatCompletions([
        { name: 'read_file', args: { path: 'plans/keys.txt' } },
        { name: 'terminal', args: { command: 'cat plans/keys.txt' } },
      ]);
      const env = await hermesSetup(model, 'plugin', { redactor: REDACTOR });
      // A plan, so workflow-guard lets the shell run.
      write(env.project, {
        'plans/active/plan.md': '# Plan\n',
        'plans/keys.txt': `KEY=${SECRET}\n`,
      });
      const run = await hermesPrompt(hermes, env, 'show me the keys');
      const why = evidence(env, run, model);
      expect(run.code, why).toBe(0);
      expect(model.requests.length, why).toBe(3);
      const results = toolResults(model);
      for (const result of [results.call_0, results.call_1])
        expect(result, why).toContain('KEY=[redacted]');
      expect(JSON.stringify(model.requests), `the key reached the model\n${why}`).not.toContain(
        SECRET,
      );
    });

    it('`hermes extensions list` runs inside the agent’s own command line', async () => {
      const model = await startFakeChatCompletions([]);
      const env = await hermesSetup(model, 'plugin', { redactor: REDACTOR });
      const listed = await runAgent(hermes, ['extensions', 'list'], {
        cwd: env.project,
        env: { HOME: env.home, HERMES_HOME: env.hermesHome },
      });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain('workflow-guard');
      expect(listed.stdout).toContain('redactor');
      // Listing runs no agent turn.
      expect(model.requests).toEqual([]);
    });
  },
);
