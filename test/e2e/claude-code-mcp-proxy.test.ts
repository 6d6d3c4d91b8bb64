import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { filesystemServer } from '../support/mcp.js';
import { type FakeMessages, startFakeMessages } from './fake-messages-server.js';
import { describeRealAgent, guardedProject, runAgent, runHermes } from './setup.js';

/**
 * The real Claude Code with NO hook installed, and the reference filesystem server wrapped in
 * `hermes mcp proxy` in its project `.mcp.json` by `hermes mcp install claude-code`, against a
 * scripted model on loopback: the model's `mcp__fs__read_text_file` is answered, its
 * `mcp__fs__write_file` before a plan is refused by the proxy with workflow-guard's reason, and
 * the file is unchanged.
 */
async function setup() {
  const { project, hermesHome } = guardedProject();
  // The user's approval of the project's `.mcp.json` servers, as Claude Code asks for it (it
  // takes it from the user's settings only, never from the project's); no hook.
  const home = tree({ '.claude/settings.json': '{"enableAllProjectMcpServers": true}\n' });
  const env = { HOME: home, HERMES_HOME: hermesHome };
  const [command, ...args] = filesystemServer(project) as [string, ...string[]];
  const installed = await runHermes(
    ['mcp', 'install', 'claude-code', '--cwd', project, '--name', 'fs', '--', command, ...args],
    env,
  );
  expect(installed.code, installed.stderr).toBe(0);
  return { project, hermesHome, home };
}

function claude(
  executable: string,
  env: { project: string; hermesHome: string; home: string },
  model: FakeMessages,
) {
  return runAgent(
    executable,
    [
      '-p',
      'write the app',
      '--output-format',
      'json',
      // Claude Code's own permission asks nothing: only the proxy stands in the way.
      '--permission-mode',
      'bypassPermissions',
    ],
    {
      cwd: env.project,
      timeout: 120_000,
      env: {
        HOME: env.home,
        HERMES_HOME: env.hermesHome,
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_TMPDIR: join(env.home, 'tmp'),
        IS_SANDBOX: '1',
        // The MCP tools offered to the model as they are, not deferred behind ToolSearch.
        ENABLE_TOOL_SEARCH: 'false',
        // Connected before the first request, as the proxy loads the extensions first.
        MCP_CONNECTION_NONBLOCKING: 'false',
      },
    },
  );
}

describeRealAgent(
  'claude',
  'real Claude Code with a wrapped MCP server and no hook',
  (executable) => {
    it("refuses the model's mcp__fs__write_file before a plan in the proxy, and answers a read", async () => {
      const env = await setup();
      const notes = join(env.project, 'src/notes.md');
      const app = join(env.project, 'src/app.ts');
      writeFileSync(notes, 'the notes\n');
      const model = await startFakeMessages([
        { name: 'mcp__fs__read_text_file', input: { path: notes } },
        { name: 'mcp__fs__write_file', input: { path: app, content: 'export const app = 2;\n' } },
      ]);
      const run = await claude(executable, env, model);
      expect(run.code, run.stderr).toBe(0);
      // No hook: Claude Code's settings hold none.
      expect(readFileSync(join(env.home, '.claude/settings.json'), 'utf8')).not.toContain('hooks');
      expect(existsSync(join(env.project, '.claude'))).toBe(false);
      // The server's tools reach the model through the proxy (once connected: not always by the first request).
      const tools = (model.requests.at(-1) as { tools?: Array<{ name: string }> }).tools ?? [];
      expect(tools.map((tool) => tool.name)).toContain('mcp__fs__write_file');
      const results = (model.requests.at(-1)?.messages ?? []).flatMap((m) =>
        Array.isArray(m.content)
          ? m.content.filter((block: { type?: string }) => block.type === 'tool_result')
          : [],
      );
      expect(results).toHaveLength(2);
      const [read, write] = results.map((r) => JSON.stringify(r));
      expect(read).toContain('the notes');
      expect(write).toContain('Blocked by workflow-guard');
      expect(write).toContain('no plan exists');
      expect(existsSync(app)).toBe(false);
      expect(readFileSync(notes, 'utf8')).toBe('the notes\n');
    }, 180_000);
  },
);
