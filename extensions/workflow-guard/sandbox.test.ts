import { linkSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, defineExtension, rewrite } from 'hermes-extensions';
import {
  groundSandboxAvailability,
  groundSandboxedCallOf,
  protectedGround,
  resetSandboxAvailability,
  sandboxedShellCallOf,
  sandboxShellCall,
} from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import {
  runShell,
  sandbox,
  sandboxMissingTest,
  treeDigest,
  useSandboxSettingsHome,
} from '../../test/support/sandbox.js';
import workflowGuard from './index.js';

useSandboxSettingsHome();

function project() {
  const root = tree({
    'src/app.ts': 'export const app = 1;\n',
    'plans/.keep': '',
    // A git config the agent may write into plans/ before it has a plan: a `git` run with HOME
    // there would run its fsmonitor.
    'plans/h/.gitconfig': '[core]\n\tfsmonitor = touch src/pwned-by-fsmonitor\n',
  });
  runShell(
    'git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init',
    root,
  );
  symlinkSync(join(root, 'src'), join(root, 'plans/src-link'));
  // A second name of a source file inside plans/ (made before the sandbox existed).
  linkSync(join(root, 'src/app.ts'), join(root, 'plans/app-alias.ts'));
  return root;
}

async function decide(
  root: string,
  command: string,
  config: Record<string, unknown> = {},
  extensions: unknown[] = [],
) {
  const runtime = await createRuntime({
    extensions: [workflowGuard, ...(extensions as [])],
    cwd: root,
    config: { extensions: { 'workflow-guard': config } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
  );
}

function messageOf(outcome: Awaited<ReturnType<typeof decide>>): string {
  if (!outcome.blocked) throw new Error('expected a refusal, and the call passed');
  return outcome.message;
}

const options = (root: string) => ({ root, writable: ['plans/', 'handoff/'] });

/**
 * One-call shell lines that changed src/ or ran code past the read-only analysis (docs/trust.md, Threat
 * model), and plain ones the analysis cannot read. Without a plan each is refused or runs in the
 * sandbox; run for real, none changes src/.
 */
const ATTEMPTS = [
  "test -v 'a[$(touch src/pwned)]'",
  "[ -v 'a[$(touch src/pwned)]' ]",
  "[[ -v 'a[$(touch src/pwned)]' ]]",
  "[[ 'a[$(rm -f src/app.ts)]' -eq 1 ]]",
  "printf -v 'a[$(touch src/pwned)]' %s x",
  'printf -v HOME %s "$PWD/plans/h"; git status',
  'echo touch src/pwned | xargs env',
  'echo touch src/pwned | xargs xargs',
  "sed -n ':x w src/app.ts' src/app.ts",
  "sh -c '[[ a > src/app.ts ]]'",
  "x='a[$(touch src/pwned)]'; echo $(( x ))",
  "x='a[$(touch src/pwned)]'; echo $[ x ]",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not JavaScript's
  'x=abc; echo ${x:$(touch src/pwned)}',
  "bash -o allexport -c 'HOME=$PWD/plans/h; git status'",
  'rm -rf src',
  'find src -delete',
  'cd src && touch pwned',
  "python3 -c \"open('src/app.ts', 'w').write('x')\"",
  "node -e \"require('fs').writeFileSync('src/app.ts', 'x')\"",
  "node -e \"require('fs').writeFileSync('plans/src-link/app.ts', 'x')\"",
  "node -e \"require('fs').writeFileSync('plans/app-alias.ts', 'x')\"",
  "node -e \"require('fs').linkSync('src/app.ts', 'plans/new-alias.ts')\"",
  'git checkout --orphan other && git rm -rfq .',
];

describe('workflow-guard without a plan: the sandbox', () => {
  sandboxMissingTest();

  describe.runIf(sandbox.available)('with the sandbox', () => {
    it.each(ATTEMPTS)('holds src/ against `%s`', async (command) => {
      const root = project();
      const before = treeDigest(join(root, 'src'));
      const outcome = await decide(root, command);
      if (outcome.blocked) {
        expect(outcome.blockedBy).toBe('workflow-guard');
        return;
      }
      // Passed as it is (the analysis took it for a read), or made to run in the sandbox.
      if (outcome.changed) {
        expect(sandboxedShellCallOf(outcome.value, options(root))).toBe(command);
      }
      runShell(outcome.value.command as string, root);
      expect(treeDigest(join(root, 'src'))).toBe(before);
    });

    it('runs a command the analysis cannot read, and its writes to plans/ land', async () => {
      const root = project();
      const command = "node -e \"require('fs').writeFileSync('plans/notes.md', 'from node')\"";
      const outcome = await decide(root, command);
      expect(outcome).toMatchObject({ blocked: false, changed: true });
      expect(outcome.metadata.workflowGuard).toMatch(/^runs in the OS sandbox: /);
      const run = runShell(outcome.value.command as string, root);
      expect(run.code).toBe(0);
      expect(runShell('cat plans/notes.md', root).stdout).toBe('from node');
    });

    it('shows the model the real output, a refused write included', async () => {
      const root = project();
      const outcome = await decide(root, 'echo before; touch src/new.ts; echo after');
      const run = runShell(outcome.value.command as string, root);
      expect(run.stdout).toBe('before\nafter\n');
      expect(run.stderr).toMatch(/src\/new\.ts.*Read-only file system/);
    });

    it('gives the command a private temporary folder it may write', async () => {
      const root = project();
      const outcome = await decide(
        root,
        "node -e \"const f=require('os').tmpdir()+'/t'; require('fs').writeFileSync(f,'ok'); console.log(require('fs').readFileSync(f,'utf8'))\"",
      );
      const run = runShell(outcome.value.command as string, root);
      expect(run).toMatchObject({ code: 0, stdout: 'ok\n' });
    });

    it('passes a command proven to only read as it is, and runs it sandboxed with `require`', async () => {
      const root = project();
      const auto = await decide(root, 'cat src/app.ts');
      expect(auto).toMatchObject({ blocked: false, changed: false });
      const required = await decide(root, 'cat src/app.ts', { sandbox: 'require' });
      expect(required).toMatchObject({ blocked: false, changed: true });
      expect(runShell(required.value.command as string, root).stdout).toBe(
        'export const app = 1;\n',
      );
    });

    it('still refuses, by name, a write it can read (the message says what to do)', async () => {
      const root = project();
      for (const sandboxMode of ['auto', 'require']) {
        const outcome = await decide(root, 'echo x > src/app.ts', { sandbox: sandboxMode });
        expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
        expect(messageOf(outcome)).toMatch(/would write src\/app\.ts.*Write the plan at/);
      }
    });

    it('takes a wrapper made by the agent only when it is exactly the guard’s own', async () => {
      const root = project();
      const own = sandboxShellCall({ command: 'touch src/x' }, options(root));
      if (own.kind !== 'sandboxed') throw new Error(own.reason);
      const ownLine = own.args.command as string;
      expect(await decide(root, ownLine)).toMatchObject({ blocked: false, changed: false });

      const wider = sandboxShellCall({ command: 'touch src/x' }, { root, writable: ['src/'] });
      if (wider.kind !== 'sandboxed') throw new Error(wider.reason);
      const forged = [
        wider.args.command as string,
        `${ownLine}; touch src/x`,
        `${ownLine} && touch src/x`,
        ownLine.replace("\ntouch src/x'", "\ntouch src/x\ntouch src/y'"),
        `cd src && ${ownLine}`,
      ];
      for (const command of forged) {
        const outcome = await decide(root, command);
        // Refused, or run in the sandbox: wrapped again, or (a line that is exactly the guard's
        // wrapper of some other command) as it is.
        if (!outcome.blocked) {
          expect(sandboxedShellCallOf(outcome.value, options(root))).toBeDefined();
        }
        const before = treeDigest(join(root, 'src'));
        if (!outcome.blocked) runShell(outcome.value.command as string, root);
        expect(treeDigest(join(root, 'src'))).toBe(before);
      }
    });

    it('refuses the wrapper when another extension changed it afterwards', async () => {
      const root = project();
      const appender = defineExtension({
        name: 'appender',
        setup(hermes) {
          hermes.on(
            'intercept_tool_call',
            (event) =>
              rewrite({ ...event.toolArgs, command: `${event.toolArgs.command}; touch src/x` }),
            { priority: 20_000 },
          );
        },
      });
      const outcome = await decide(root, 'npm test', {}, [appender]);
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
      expect(messageOf(outcome)).toContain('another extension changed the command');
    });

    it('leaves a plan-time call to the framework: only protected ground stays read-only', async () => {
      const root = project();
      write(root, { 'plans/active/plan.md': '# Plan\n\nGoal: x. Steps: y. Tests: z.\n' });
      const outcome = await decide(root, 'npm test');
      // npm reads settings the project may hold (.npmrc), so the framework's protected-ground
      // sandbox runs it (docs/trust.md, Protected ground), where it is still `npm test`; where
      // that sandbox cannot run, the framework refuses it.
      if (!groundSandboxAvailability().available) {
        expect(outcome).toMatchObject({ blocked: true, blockedBy: 'hermes' });
        return;
      }
      expect(outcome.blocked).toBe(false);
      // Not workflow-guard's sandbox: the plan lifts it.
      expect(outcome.metadata.workflowGuard).toBeUndefined();
      expect(sandboxedShellCallOf(outcome.value, options(root))).toBeUndefined();
      expect(groundSandboxedCallOf(outcome.value, protectedGround(root))).toEqual({
        command: 'npm test',
      });
    });
  });
});

describe('workflow-guard without a plan, when the sandbox cannot run', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
    resetSandboxAvailability();
  });

  it('refuses what it cannot read, saying why the sandbox did not run and how to enable it', async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), 'hermes-empty-path-'));
    resetSandboxAvailability();
    const root = tree({ 'src/app.ts': 'x\n', 'plans/.keep': '' });
    const outcome = await decide(root, 'npm test');
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
    expect(messageOf(outcome)).toContain('It could not run in the OS sandbox: bubblewrap (bwrap)');
    expect(messageOf(outcome)).toContain('apt-get install bubblewrap socat ripgrep');
    const required = await decide(root, 'ls', { sandbox: 'require' });
    expect(required).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
    expect(messageOf(required)).toContain('sandbox: require');
  });

  it('with `sandbox: off`, refuses as before and names the option', async () => {
    const root = tree({ 'src/app.ts': 'x\n', 'plans/.keep': '' });
    const outcome = await decide(root, 'npm test', { sandbox: 'off' });
    expect(outcome).toMatchObject({ blocked: true, changed: false });
    expect(messageOf(outcome)).toContain('`sandbox: auto`');
  });
});
