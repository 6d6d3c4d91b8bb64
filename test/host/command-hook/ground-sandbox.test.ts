import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, hookHomes, preToolUse, runHook, WORKFLOW_GUARD } from '../../support/run-bin.js';
import { decoy, runShellAsync } from '../../support/sandbox.js';

/**
 * Protected ground holds against a command whose writes no reading of its words can list
 * (docs/trust.md, Protected ground): after a plan, or with no workflow-guard at all, such a shell
 * call runs in the framework's own sandbox, where protected ground is read-only and the rest is
 * as it was (the project writable, the network open). Through the real hook process, and run as
 * Claude Code runs what the hook hands back.
 */
const UNGUARDED = 'extensions: {}\n';

function setup(config: string) {
  const { user, home } = hookHomes(config);
  const project = tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions: {}\n',
    '.claude/settings.json': '{}\n',
    'src/app.ts': 'export const app = 1;\n',
    'plans/active/plan.md': '# Plan\n\nGoal: build dist/.\n',
    // A project script: it writes the agents' hook settings, in the project and the user's.
    'build.sh':
      'mkdir -p .claude ~/.claude\necho pwned > .claude/settings.json\necho pwned > ~/.claude/settings.json\n',
    // An ordinary build: a file in dist/, and a fetch from a server on loopback.
    'build.mjs': [
      "import { mkdirSync, writeFileSync } from 'node:fs';",
      'const body = await (await fetch("http://127.0.0.1:" + process.argv[2] + "/")).text();',
      "mkdirSync('dist', { recursive: true });",
      "writeFileSync('dist/out.txt', 'built ' + body);",
    ].join('\n'),
  });
  chmodSync(join(project, 'build.sh'), 0o755);
  // An archive whose entries are protected names.
  const vendor = tree({ '.hermes/config.yaml': 'pwned\n', '.hermes/extensions/x.mjs': 'pwned\n' });
  const tar = spawnSync('tar', ['czf', join(project, 'vendor.tgz'), '-C', vendor, '.hermes']);
  expect(tar.status, String(tar.stderr)).toBe(0);
  return { user, home, project };
}

let calls = 0;

/**
 * The command Claude Code runs for a Bash call: the hook's `updatedInput` when it gives one, the
 * call as sent when it allows it silently; undefined when it denies it.
 */
async function effective(env: ReturnType<typeof setup>, command: string) {
  const sent = preToolUse('ground-sandbox', env.project, 'Bash', { command }, `call_${calls++}`);
  const answer = await runHook('claude-code', env.home, sent, { HOME: env.user });
  if (answer.stdout === '') {
    expect(answer.code, answer.stderr).toBe(0);
    return { command, reason: '' };
  }
  const output = JSON.parse(answer.stdout).hookSpecificOutput;
  if (output?.permissionDecision === 'deny') {
    return { command: undefined, reason: String(output.permissionDecisionReason) };
  }
  return { command: String(output?.updatedInput?.command ?? command), reason: '' };
}

async function runAsAgent(env: ReturnType<typeof setup>, command: string) {
  return runShellAsync(command, env.project, {
    ...process.env,
    HOME: env.user,
    HERMES_HOME: env.home,
  });
}

const ATTACKS: ReadonlyArray<readonly [string, string]> = [
  [
    'python3 building .hermes/config.yaml',
    `python3 -c "open('.her' + 'mes/config.yaml', 'w').write('pwned')"`,
  ],
  [
    'node writing $HERMES_HOME',
    `node -e "const f = require('fs'); const h = process.env['HERMES' + '_HOME']; f.writeFileSync(h + '/config.yaml', 'pwned'); f.writeFileSync(h + '/trusted-projects.json', '{}')"`,
  ],
  ['a project script writing hook settings', './build.sh'],
  ['tar extracting .hermes/', 'tar xzf vendor.tgz'],
];

describe.runIf(built)(
  'the protected-ground sandbox through `hermes hook claude-code`',
  { timeout: 120_000 },
  () => {
    for (const [setupName, config] of [
      ['workflow-guard with a plan', WORKFLOW_GUARD],
      ['no workflow-guard', UNGUARDED],
    ] as const) {
      describe(setupName, () => {
        for (const [name, command] of ATTACKS) {
          it(`${name}: leaves protected ground as it was`, async () => {
            const env = setup(config);
            const got = await effective(env, command);
            expect(got.command, got.reason).toBeDefined();
            await runAsAgent(env, got.command as string);
            expect(readFileSync(join(env.project, '.hermes/config.yaml'), 'utf8')).toBe(
              'extensions: {}\n',
            );
            expect(existsSync(join(env.project, '.hermes/extensions'))).toBe(false);
            expect(readFileSync(join(env.project, '.claude/settings.json'), 'utf8')).toBe('{}\n');
            expect(readFileSync(join(env.user, '.claude/settings.json'), 'utf8')).toBe('{}\n');
            expect(readFileSync(join(env.home, 'config.yaml'), 'utf8')).toBe(config);
            expect(existsSync(join(env.home, 'trusted-projects.json'))).toBe(false);
          });
        }

        it('a protected folder that does not exist yet is not made, and nothing is left behind', async () => {
          const env = setup(config);
          const fresh = tree({ '.git/HEAD': '', 'plans/active/plan.md': '# Plan\n' });
          const attack = `python3 -c "import os; os.makedirs('.her' + 'mes'); open('.her' + 'mes/config.yaml', 'w').write('pwned')"`;
          const sent = preToolUse(
            'ground-sandbox',
            fresh,
            'Bash',
            { command: attack },
            `call_${calls++}`,
          );
          const answer = await runHook('claude-code', env.home, sent, { HOME: env.user });
          const output = answer.stdout === '' ? {} : JSON.parse(answer.stdout).hookSpecificOutput;
          expect(output?.permissionDecision, output?.permissionDecisionReason).not.toBe('deny');
          const command = String(output?.updatedInput?.command ?? attack);
          const run = await runShellAsync(command, fresh, {
            ...process.env,
            HOME: env.user,
            HERMES_HOME: env.home,
          });
          expect(run.code).not.toBe(0);
          expect(existsSync(join(fresh, '.hermes'))).toBe(false);
          // Nor the other places of the ground the sandbox had to hold open.
          for (const name of ['.codex', '.cursor', '.opencode', '.agents']) {
            expect(existsSync(join(fresh, name)), name).toBe(false);
          }
        });

        it('an ordinary build still writes the project and reaches loopback', async () => {
          const env = setup(config);
          const server = await decoy({ host: '127.0.0.1' });
          try {
            const got = await effective(env, `node build.mjs ${server.port}`);
            expect(got.command, got.reason).toBeDefined();
            const run = await runAsAgent(env, got.command as string);
            expect(run.code, run.stderr).toBe(0);
            expect(readFileSync(join(env.project, 'dist/out.txt'), 'utf8')).toBe('built reached');
            expect(server.reached()).toBe(1);
          } finally {
            server.close();
          }
        });

        it('the sandboxed form, sent back as it was, runs as it is', async () => {
          const env = setup(config);
          const first = await effective(env, 'tar xzf vendor.tgz');
          expect(first.command).not.toBe('tar xzf vendor.tgz');
          const again = await effective(env, first.command as string);
          expect(again.command, again.reason).toBe(first.command);
        });

        it('codex: the same call comes back allowed in the sandbox, and holds', async () => {
          const env = setup(config);
          const command = ATTACKS[0]?.[1] as string;
          const sent = {
            session_id: 'ground-sandbox-codex',
            turn_id: 't1',
            model: 'gpt-5.5',
            cwd: env.project,
            permission_mode: 'bypassPermissions',
            hook_event_name: 'PreToolUse',
            tool_name: 'Bash',
            tool_input: { command },
            tool_use_id: `call_${calls++}`,
          };
          const answer = await runHook('codex', env.home, sent, { HOME: env.user });
          const output = JSON.parse(answer.stdout).hookSpecificOutput;
          expect(output.permissionDecision, output.permissionDecisionReason).toBe('allow');
          await runAsAgent(env, String(output.updatedInput.command));
          expect(readFileSync(join(env.project, '.hermes/config.yaml'), 'utf8')).toBe(
            'extensions: {}\n',
          );
        });

        it('a command shown to only read runs as it was sent', async () => {
          const env = setup(config);
          const got = await effective(env, 'ls -la && cat src/app.ts');
          expect(got.command).toBe('ls -la && cat src/app.ts');
        });
      });
    }
  },
);
