import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import { groundSandboxAvailability, sandboxCommand } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import { runShell, sandbox, sandboxMissingTest } from '../../test/support/sandbox.js';
import workflowGuard from '../workflow-guard/index.js';
import secretsGuard from './index.js';

/**
 * Secret files out of sandboxed commands' reach (README.md, In the sandbox): a command that
 * names no secret file passes secrets-guard's reading of its words, and the program it runs may
 * still read one by itself (`node read-env.js`, a name built at run time). Where the framework
 * runs such a call in a sandbox — workflow-guard's before a plan, the protected-ground sandbox
 * after one or without workflow-guard — the secret files are there but cannot be opened
 * (permission denied), and every other file reads as before. Run for real, as the agent's shell runs what the chain hands back.
 */
const SECRET = 'sk-live-0123456789abcdefSECRET';
const HOME_SECRET = 'aws_secret_access_key=HOMESECRET0123456789';

/** Prints each file, or the error reading it: the secret must not be printed, the rest must. */
const READER = `const fs = require('fs');
const home = process.env['HO' + 'ME'];
for (const f of ['.e' + 'nv', 'config/.e' + 'nv.local', 'link.txt', 'notes.txt', 'plans/.e' + 'nv', 'keys/a[1].pem',
  home + '/.aws/cred' + 'entials', home + '/.ne' + 'trc', home + '/.ssh/id_' + 'ed25519',
  home + '/.ssh/known_hosts', home + '/notes.txt']) {
  let said;
  try { said = fs.readFileSync(f, 'utf8'); } catch (error) { said = error.code; }
  console.log(f.slice(f.lastIndexOf('/') + 1) + '=' + JSON.stringify(said));
}
`;

let user: string;

beforeEach(() => {
  user = tree({
    '.aws/credentials': `${HOME_SECRET}\n`,
    '.netrc': `machine example.com password ${HOME_SECRET}\n`,
    '.ssh/id_ed25519': `${HOME_SECRET}\n`,
    '.ssh/known_hosts': 'example.com ssh-ed25519 AAAA\n',
    'notes.txt': 'home notes\n',
  });
  const home = join(user, '.hermes');
  mkdirSync(home);
  process.env.HOME = user;
  process.env.HERMES_HOME = home;
});

function project(planned = false) {
  const root = tree({
    '.git/HEAD': '',
    '.env': `API_KEY=${SECRET}\n`,
    'config/.env.local': `LOCAL_KEY=${SECRET}\n`,
    // A name the sandbox runtime would read as a glob (matching `a1.pem`, not itself).
    'keys/a[1].pem': `${SECRET}\n`,
    'keys/a1.pem.txt': 'not a key\n',
    '.env.example': 'API_KEY=\n',
    'notes.txt': 'project notes\n',
    'read-env.js': READER,
    'make-env.js': `require('fs').writeFileSync('plans/.e' + 'nv', 'MADE=inside\\n');\n${READER}`,
    'plans/.keep': '',
    ...(planned ? { 'plans/active/plan.md': '# Plan\n\nGoal: read the config.\n' } : {}),
  });
  // A link to the secret file under a name that is none.
  symlinkSync('.env', join(root, 'link.txt'));
  return root;
}

async function runAsAgent(root: string, extensions: ExtensionDefinition[], command: string) {
  const runtime = await createRuntime({
    extensions: extensions as ExtensionDefinition<Record<string, unknown>>[],
    cwd: root,
    config: {},
    logger: memoryLogger(),
  });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
  );
  expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
  if (outcome.blocked) throw new Error('refused');
  const ran = String(outcome.value.command);
  return { ran, changed: outcome.changed, ...runShell(ran, root) };
}

const SETUPS = [
  ['workflow-guard without a plan', [secretsGuard, workflowGuard], false, 'srt'],
  ['workflow-guard with a plan', [secretsGuard, workflowGuard], true, 'ground'],
  ['no workflow-guard', [secretsGuard], false, 'ground'],
] as const;

const COMMANDS = [
  'node read-env.js',
  `python3 -c "print(open('.e' + 'nv').read())" ; node read-env.js`,
];

describe('secret files in the sandbox', { timeout: 60_000 }, () => {
  sandboxMissingTest();
  const both = sandbox.available && groundSandboxAvailability().available;

  describe.runIf(both)('with the sandboxes', () => {
    for (const [name, extensions, planned, which] of SETUPS) {
      describe(name, () => {
        for (const command of COMMANDS) {
          it(`${command}: reads the other files, and the secret files cannot be opened`, async () => {
            const root = project(planned);
            const run = await runAsAgent(root, [...extensions], command);
            expect(run.changed, 'the call runs in a sandbox').toBe(true);
            // workflow-guard's own line unshares the network; the protected-ground line does not.
            expect(run.ran).toContain(which === 'srt' ? '--unshare-net' : 'bwrap');
            expect(run.code, run.stderr).toBe(0);
            expect(run.stdout).not.toContain(SECRET);
            expect(run.stdout).not.toContain('HOMESECRET');
            // Refused as a file this user may not read: the program sees why, and goes on.
            expect(run.stdout).toContain('.env="EACCES"');
            expect(run.stdout).toContain('.env.local="EACCES"');
            expect(run.stdout).toContain('link.txt="EACCES"');
            expect(run.stdout).toContain('credentials="EACCES"');
            expect(run.stdout).toContain('.netrc="EACCES"');
            expect(run.stdout).toContain('id_ed25519="EACCES"');
            expect(run.stdout).toContain('known_hosts="example.com ssh-ed25519 AAAA\\n"');
            expect(run.stdout).toContain('a[1].pem="EACCES"');
            expect(run.stdout).toContain('notes.txt="project notes\\n"');
            expect(run.stdout).toContain('notes.txt="home notes\\n"');
            // Outside, nothing changed.
            expect(readFileSync(join(root, '.env'), 'utf8')).toBe(`API_KEY=${SECRET}\n`);
          });
        }
      });
    }

    it('a secret file a sandboxed command makes is its own bytes to it, and the next call is denied it', async () => {
      const root = project();
      const made = await runAsAgent(root, [secretsGuard, workflowGuard], 'node make-env.js');
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain('.env="MADE=inside\\n"');
      // The user puts a value in it meanwhile; the next sandbox finds it by its name.
      write(root, { 'plans/.env': `LATER=${SECRET}\n` });
      const next = await runAsAgent(root, [secretsGuard, workflowGuard], 'node read-env.js');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).not.toContain(SECRET);
    });

    for (const planned of [false, true]) {
      it(`a sandbox line made without the denials, sent as the call, does not run as sent (${planned ? 'with' : 'without'} a plan)`, async () => {
        const root = project(planned);
        // What workflow-guard's sandbox made before secrets-guard was on: its settings file is
        // still in $HERMES_HOME/sandbox, and it keeps protected ground read-only.
        const old = sandboxCommand('node read-env.js', { root, writable: ['plans/', 'handoff/'] });
        if (old.kind !== 'sandboxed') throw new Error(old.reason);
        const runtime = await createRuntime({
          extensions: [secretsGuard, workflowGuard] as ExtensionDefinition<
            Record<string, unknown>
          >[],
          cwd: root,
          config: {},
          logger: memoryLogger(),
        });
        const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
          turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command: old.command } }),
        );
        if (outcome.blocked) return;
        expect(outcome.value.command).not.toBe(old.command);
        const run = runShell(String(outcome.value.command), root);
        expect(run.stdout).not.toContain(SECRET);
      });
    }

    it('the protected-ground sandbox line, sent back as it was, runs as it is (its masks name the secret files)', async () => {
      const root = project(true);
      const runtime = await createRuntime({
        extensions: [secretsGuard, workflowGuard] as ExtensionDefinition<Record<string, unknown>>[],
        cwd: root,
        config: {},
        logger: memoryLogger(),
      });
      const send = (command: string) =>
        runtime.runTurn({ sessionId: 's' }, (turn) =>
          turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
        );
      const first = await send('node read-env.js');
      if (first.blocked) throw new Error(first.message);
      expect(first.value.command).toContain(join(root, '.env'));
      const again = await send(String(first.value.command));
      expect(again, JSON.stringify(again)).toMatchObject({ blocked: false, changed: false });
      // What runs inside is still judged: a line naming the file is refused, sandboxed or not.
      const named = await send(String(first.value.command).replace('read-env.js', '.env'));
      expect(named.blocked).toBe(true);
    });

    it('a file allowed by the config is read', async () => {
      const root = project();
      const runtime = await createRuntime({
        extensions: [secretsGuard, workflowGuard] as ExtensionDefinition<Record<string, unknown>>[],
        cwd: root,
        config: { extensions: { 'secrets-guard': { allow: ['config/.env.local'] } } },
        logger: memoryLogger(),
      });
      const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command: 'node read-env.js' } }),
      );
      if (outcome.blocked) throw new Error(outcome.message);
      const run = runShell(String(outcome.value.command), root);
      expect(run.stdout).toContain(`.env.local="LOCAL_KEY=${SECRET}\\n"`);
      expect(run.stdout).toContain('.env="EACCES"');
    });

    describe('without secrets-guard nothing changes', () => {
      for (const [name, extensions, planned] of [
        ['workflow-guard without a plan', [workflowGuard], false],
        ['no extension', [], false],
      ] as const) {
        it(`${name}: the sandboxed command reads the secret files`, async () => {
          const root = project(planned);
          const run = await runAsAgent(root, [...extensions], 'node read-env.js');
          expect(run.changed).toBe(true);
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout).toContain(`.env="API_KEY=${SECRET}\\n"`);
          expect(run.stdout).toContain('HOMESECRET');
        });
      }
    });
  });
});
