import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, hookHomes, preToolUse, runHook, WORKFLOW_GUARD } from '../../support/run-bin.js';

/**
 * The MCP clients' configs decide which program each client runs as a server: once `hermes mcp
 * install` wraps a server in `hermes mcp proxy`, an agent that could edit them would unwrap it
 * (docs/mcp.md, docs/trust.md Protected ground). Through the real hook process, with
 * workflow-guard and a plan present, so that only the framework's rule can refuse.
 */
const PROJECT_FILES = ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json'];
const USER_FILES = [
  '.claude.json',
  '.cursor/mcp.json',
  '.config/Claude/claude_desktop_config.json',
  '.config/Code/User/mcp.json',
];
const SERVERS = '{"mcpServers":{"fs":{"command":"hermes","args":["mcp","proxy","--","fs"]}}}\n';

function setup() {
  const { user, home } = hookHomes(WORKFLOW_GUARD, { '.keep': '' });
  const project = tree({
    '.git/HEAD': '',
    'src/app.ts': 'export const app = 1;\n',
    'plans/active/plan.md': '# Plan\n\nGoal: change src/app.ts.\n',
  });
  for (const file of PROJECT_FILES) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), SERVERS);
  }
  for (const file of USER_FILES) {
    mkdirSync(dirname(join(user, file)), { recursive: true });
    writeFileSync(join(user, file), SERVERS);
  }
  return { user, home, project };
}

let calls = 0;
async function decide(
  env: { user: string; home: string; project: string },
  tool: string,
  input: Record<string, unknown>,
) {
  const sent = preToolUse('protected-mcp-configs', env.project, tool, input, `call_${calls++}`);
  const result = await runHook('claude-code', env.home, sent, {
    HOME: env.user,
    XDG_CONFIG_HOME: join(env.user, '.config'),
  });
  if (result.stdout === '') return { decision: `exit ${result.code}: allowed`, reason: '' };
  const output = JSON.parse(result.stdout).hookSpecificOutput;
  return {
    decision: String(output?.permissionDecision ?? 'none'),
    reason: String(output?.permissionDecisionReason ?? ''),
  };
}

describe.runIf(built)(
  "the MCP clients' configs are protected ground, through `hermes hook claude-code`",
  { timeout: 240_000 },
  () => {
    it("refuses the agent's Write, Edit and Bash to each client's MCP config", async () => {
      const env = setup();
      const files = [
        ...PROJECT_FILES.map((file) => join(env.project, file)),
        ...USER_FILES.map((file) => join(env.user, file)),
      ];
      for (const file of files) {
        const attempts: Array<[string, Record<string, unknown>]> = [
          ['Write', { file_path: file, content: '{"mcpServers":{}}\n' }],
          ['Edit', { file_path: file, old_string: '"hermes"', new_string: '"fs"' }],
          ['Bash', { command: `echo '{}' > '${file}'` }],
          ['Bash', { command: `sed -i s/hermes/fs/ '${file}'` }],
        ];
        for (const [tool, input] of attempts) {
          const got = await decide(env, tool, input);
          expect(got.decision, `${tool} ${JSON.stringify(input)}`).toBe('deny');
          expect(got.reason, `${tool} ${JSON.stringify(input)}`).toContain('protected ground');
        }
        expect(readFileSync(file, 'utf8')).toBe(SERVERS);
      }
      // By name, from the project's folder: the words a `cp` or `python3 -c` names.
      for (const command of [
        'cp /dev/null .mcp.json',
        'cp plans/x .vscode/mcp.json',
        "python3 -c \"open('.cursor/mcp.json','w')\"",
        'cp plans/x ~/.claude.json',
      ]) {
        const got = await decide(env, 'Bash', { command });
        expect(got.decision, command).toBe('deny');
      }
      // The planned edit still goes through: the rule is not a blanket refusal.
      const planned = await decide(env, 'Write', {
        file_path: join(env.project, 'src/app.ts'),
        content: 'export const app = 2;\n',
      });
      expect(planned.decision).toBe('exit 0: allowed');
    });

    it('refuses `hermes mcp install` and `hermes mcp uninstall` run by the agent, and lets the proxy run', async () => {
      const env = setup();
      for (const command of [
        'hermes mcp install claude-code --wrap fs',
        'npx hermes-extensions mcp uninstall cursor --name fs',
        "sh -c 'hermes mcp --cwd . install vscode -- node server.js'",
      ]) {
        const got = await decide(env, 'Bash', { command });
        expect(got.decision, command).toBe('deny');
        expect(got.reason, command).toContain('hermes mcp');
      }
      // The proxy writes no config: it is the agent's to run, as the shell would the server.
      const proxy = await decide(env, 'Bash', {
        command: 'hermes mcp proxy --name fs -- node x.js',
      });
      expect(proxy.reason).not.toContain('protected ground');
    });
  },
);
