import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';
import { runShell, sandboxedUnder, treeDigest } from '../../support/sandbox.js';

/**
 * The bypasses of workflow-guard through the command hooks, as Claude Code and Codex send them:
 * each one must come back as a deny (Claude Code and Codex run anything else). In-process
 * versions of these and many more are in extensions/workflow-guard/ and test/policy/.
 */
function setup() {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
  });
  const project = tree({ '.git/HEAD': '', 'src/app.ts': 'x\n', 'plans/.keep': '' });
  symlinkSync(join(project, 'src'), join(project, 'plans/src-link'));
  return { home, project };
}

type Agent = 'claude-code' | 'codex';

/** Each call its own id, as the agents give them: one id is decided once. */
let calls = 0;

function event(agent: Agent, cwd: string, tool: string, input: Record<string, unknown>) {
  return {
    session_id: `${agent}-session`,
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd,
    permission_mode: agent === 'codex' ? 'bypassPermissions' : 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: `call_${calls++}`,
  };
}

async function decision(agent: Agent, home: string, sent: unknown): Promise<string> {
  const answer = await runHook(agent, home, sent);
  if (answer.stdout === '') return `exit ${answer.code}: allowed`;
  return JSON.parse(answer.stdout).hookSpecificOutput?.permissionDecision ?? 'none';
}

/**
 * A shell call refused (`deny`), or made to run in workflow-guard's sandbox: the answer's
 * `updatedInput` is exactly the guard's sandboxed form of the command (Claude Code takes it with no
 * decision, Codex with `allow`), and run as the agent runs it, it leaves src/ as it was.
 */
async function deniedOrContained(agent: Agent, home: string, project: string, command: string) {
  const answer = await runHook(agent, home, event(agent, project, 'Bash', { command }));
  if (answer.stdout === '') return `exit ${answer.code}: allowed`;
  const output = JSON.parse(answer.stdout).hookSpecificOutput;
  if (output?.permissionDecision === 'deny') return 'deny';
  const input = output?.updatedInput;
  const sandbox = {
    root: project,
    writable: ['plans/', 'handoff/'],
    stateDir: join(home, 'sandbox'),
  };
  const inner = sandboxedUnder(home, input ?? {}, sandbox);
  if (inner !== command) return `rewritten: ${input?.command}`;
  if (output.permissionDecision !== (agent === 'codex' ? 'allow' : undefined)) {
    return `sandboxed with the decision ${output.permissionDecision}`;
  }
  const before = treeDigest(join(project, 'src'));
  runShell(input.command, project);
  return treeDigest(join(project, 'src')) === before ? 'contained' : 'src/ changed';
}

const SHELL_BYPASSES = [
  'ls\nrm -rf src',
  'PATH=plans ls',
  'plans/ls',
  'sed -Ei s/a/b/ src/app.ts',
  "sed 's/a/b/w src/app.ts' src/app.ts",
  'git diff --output=src/app.ts',
  'echo x > 1',
  'cd plans/src-link && echo x > app.ts',
  'echo $(rm src/app.ts)',
  'find . -delete',
  'npm test',
  // What bash evaluates as code, assigns, or takes from data, and sh read as dash (docs/trust.md, Threat
  // model): the analysis refuses them, and with the sandbox they run contained.
  "test -v 'a[$(touch src/pwned)]'",
  "[[ 'a[$(rm -f src/app.ts)]' -eq 1 ]]",
  "printf -v 'a[$(touch src/pwned)]' %s x",
  'printf -v HOME %s "$PWD/plans"; git status',
  'echo touch src/pwned | xargs env',
  "sed -n ':x w src/app.ts' src/app.ts",
  "sh -c '[[ a > src/app.ts ]]'",
];

// Each answer is a process of its own: a dozen of them take seconds on a busy machine.
const SLOW = 60_000;

describe.runIf(built)('workflow-guard through the command hooks', { timeout: SLOW }, () => {
  for (const agent of ['claude-code', 'codex'] as const) {
    it(`${agent}: denies or contains every shell bypass, and passes reading commands`, async () => {
      const { home, project } = setup();
      const answers: Record<string, string> = {};
      // One at a time: each contained command runs against the same src/.
      for (const command of SHELL_BYPASSES) {
        answers[command] = await deniedOrContained(agent, home, project, command);
      }
      for (const [command, answer] of Object.entries(answers)) {
        expect(['deny', 'contained'], `${command}: ${answer}`).toContain(answer);
      }
      // A write the guard can name is refused by name, never merely contained.
      expect(answers['echo x > 1']).toBe('deny');
      const reading = await decision(
        agent,
        home,
        event(agent, project, 'Bash', { command: 'ls -la && cat src/app.ts' }),
      );
      expect(reading).toBe('exit 0: allowed');
      // git takes settings from the repository's config, which an agent with a plan may write: it
      // runs in the framework's protected-ground sandbox, never refused (docs/trust.md, Protected ground).
      const git = await runHook(
        agent,
        home,
        event(agent, project, 'Bash', { command: 'git status' }),
      );
      const gitOutput = JSON.parse(git.stdout).hookSpecificOutput;
      expect(gitOutput.permissionDecision).not.toBe('deny');
      expect(String(gitOutput.updatedInput.command)).toContain("-c 'git status'");
      // Some forty hook processes one after another, each contained command run in the sandbox:
      // on a loaded 2-core machine that nears the suite's 60 s limit, which only has to catch a hang.
    }, 180_000);

    it(`${agent}: a relative path in a shell command is below the agent's working folder`, async () => {
      const { home, project } = setup();
      // The agent's shell is in src/: `plans/a.md` there is src/plans/a.md.
      const sent = event(agent, join(project, 'src'), 'Bash', { command: 'echo x > plans/a.md' });
      expect(await decision(agent, home, sent)).toBe('deny');
      const atRoot = event(agent, project, 'Bash', { command: 'echo x > plans/a.md' });
      expect(await decision(agent, home, atRoot)).toBe('exit 0: allowed');
    });
  }

  it('claude-code: denies MCP tools and writes through links, allows them with a plan', async () => {
    const { home, project } = setup();
    const mcp = event('claude-code', project, 'mcp__fs__write_file', { path: 'src/app.ts' });
    const linked = event('claude-code', project, 'Write', {
      file_path: join(project, 'plans/src-link/app.ts'),
      content: 'x',
    });
    const multi = event('claude-code', project, 'MultiEdit', {
      file_path: join(project, 'src/app.ts'),
      edits: [{ old_string: 'x', new_string: 'y' }],
    });
    expect(
      await Promise.all([mcp, linked, multi].map((e) => decision('claude-code', home, e))),
    ).toEqual(['deny', 'deny', 'deny']);
    write(project, { 'plans/active/plan.md': '# Plan\n' });
    // The model tries again: a new call, with its own id (one id is decided once).
    const again = event('claude-code', project, 'mcp__fs__write_file', { path: 'src/app.ts' });
    expect(await decision('claude-code', home, again)).toBe('exit 0: allowed');
  });

  for (const agent of ['claude-code', 'codex'] as const) {
    it(`${agent}: denies a writer whose other arguments name src/ beside an allowed path`, async () => {
      const { home, project } = setup();
      const tool = agent === 'codex' ? 'write_file' : 'Write';
      const decoys = [
        { file_path: join(project, 'plans/x.md'), content: 'x', to: 'src/app.ts' },
        { file_path: join(project, 'plans/%2e%2e/src/app.ts'), content: 'x' },
      ];
      const answers = await Promise.all(
        decoys.map((input) => decision(agent, home, event(agent, project, tool, input))),
      );
      expect(answers).toEqual(['deny', 'deny']);
    });
  }

  it('codex: denies apply_patch variants that name src/', async () => {
    const { home, project } = setup();
    const patches = [
      '*** Begin Patch\n  *** Update File: src/app.ts\n@@\n-x\n+y\n*** End Patch\n',
      '*** Begin Patch\n*** Add File: plans/a.md\n+a\n*** Update File: src/app.ts\n@@\n-x\n+y\n*** End Patch\n',
      '*** Begin Patch\n*** Update File: plans/a.md\n*** Move to: src/app.ts\n@@\n-x\n+y\n*** End Patch\n',
    ];
    const answers = await Promise.all(
      patches.map((command) =>
        decision('codex', home, event('codex', project, 'apply_patch', { command })),
      ),
    );
    expect(answers).toEqual(['deny', 'deny', 'deny']);
  });
});
