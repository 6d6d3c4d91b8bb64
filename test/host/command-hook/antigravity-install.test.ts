import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { antigravity } from '../../../src/host/command-hook/agents/antigravity.js';
import { wrappedHookCommand } from '../../../src/host/command-hook/hook-wrapper.js';
import { antigravityHooksProblem } from '../../../src/host/command-hook/settings/antigravity-hooks-check.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin, runProcess } from '../../support/run-bin.js';

const hermes = (home: string, ...args: string[]) =>
  runBin(args, { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0' });

const read = (file: string) => readFileSync(file, 'utf8');
const pluginDir = (home: string) => join(home, '.gemini/config/plugins/hermes-extensions');

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
);

describe('what Antigravity would refuse to load (antigravity-hooks-check.ts)', () => {
  it('passes the named-hook shape and names each load-time error', () => {
    const good = {
      audit: {
        PreToolUse: [
          { matcher: 'run_command', hooks: [{ type: 'command', command: 'a', timeout: 5 }] },
        ],
        Stop: [{ command: 'make lint' }],
        PreInvocation: [{ type: 'prompt', prompt: 'UTC only.', model: 'gemini-3-pro' }],
      },
    };
    expect(antigravityHooksProblem(good)).toBeUndefined();
    const bad: Array<[unknown, RegExp]> = [
      [[], /not a JSON object/],
      [{ enabled: true }, /top-level "enabled"/],
      [{ a: [] }, /hook "a" is not an object/],
      [{ a: { enabled: 'no' } }, /"enabled" is not a boolean/],
      [{ a: { PreToolUse: {} } }, /is not a list/],
      [{ a: { PreToolUse: [{ matcher: 1, hooks: [] }] } }, /matcher is not a string/],
      [{ a: { PreToolUse: [{ hooks: {} }] } }, /"hooks" is not a list/],
      [{ a: { PreToolUse: [{ hooks: [{ type: 'COMMAND' }] }] } }, /neither "command" nor "prompt"/],
      [{ a: { Stop: [{ command: 'x', timeout: 1.5 }] } }, /timeout of 1.5/],
      [{ a: { Stop: [{ command: 'x', timeout: 2 ** 31 }] } }, /32-bit/],
      [{ a: { Stop: [{ command: 'x', model: 'm' }] } }, /command handler carries/],
      [{ a: { Stop: [{ type: 'prompt', command: 'x' }] } }, /prompt handler carries "command"/],
    ];
    for (const [file, why] of bad) expect(antigravityHooksProblem(file)).toMatch(why);
  });
});

describe.runIf(built)('hermes hook install / uninstall antigravity', () => {
  it('writes a plugin (plugin.json and hooks.json at its root) that Antigravity loads, keeps other hooks in it, and twice is once', async () => {
    const home = tree();
    const run = await hermes(home, 'hook', 'install', 'antigravity');
    expect(run.code, run.stderr).toBe(0);
    const file = join(pluginDir(home), 'hooks.json');
    expect(run.stdout).toContain(`Added the hermes hook for PreToolUse to ${file}.`);
    expect(JSON.parse(read(join(pluginDir(home), 'plugin.json'))).name).toBe('hermes-extensions');
    const hooks = JSON.parse(read(file));
    expect(antigravityHooksProblem(hooks)).toBeUndefined();
    expect(hooks).toEqual({
      'hermes-extensions': {
        PreToolUse: [
          {
            matcher: '*',
            hooks: [
              {
                type: 'command',
                command: expect.stringContaining('hermes-hook antigravity'),
                timeout: 30,
              },
            ],
          },
        ],
      },
    });
    // A hook of the user's in the same file stays; installing again changes nothing.
    const mine = { mine: { Stop: [{ command: 'make lint' }] } };
    writeFileSync(file, JSON.stringify({ ...hooks, ...mine }, null, 2));
    const before = read(file);
    expect((await hermes(home, 'hook', 'install', 'antigravity')).stdout).toMatch(
      /already runs the hermes hook; nothing changed/,
    );
    expect(read(file)).toBe(before);
    // Uninstall takes ours and leaves the user's (and so the plugin).
    expect((await hermes(home, 'hook', 'uninstall', 'antigravity')).stdout).toMatch(
      /Removed the hermes hook for PreToolUse from/,
    );
    expect(JSON.parse(read(file))).toEqual(mine);
    expect(existsSync(join(pluginDir(home), 'plugin.json'))).toBe(true);
  });

  it('uninstall removes the plugin it alone made', async () => {
    const home = tree();
    expect((await hermes(home, 'hook', 'install', 'antigravity')).code).toBe(0);
    expect((await hermes(home, 'hook', 'uninstall', 'antigravity')).code).toBe(0);
    expect(existsSync(pluginDir(home))).toBe(false);
  });

  it('does not add a hook to a file Antigravity would drop whole, and leaves it as it was', async () => {
    const bad = JSON.stringify({ mine: { Stop: [{ command: 'x', timeout: 1.5 }] } });
    const home = tree({ '.gemini/config/plugins/hermes-extensions/hooks.json': bad });
    const run = await hermes(home, 'hook', 'install', 'antigravity');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /Antigravity would not load this file \(hook "mine", Stop: a timeout of 1.5/,
    );
    expect(read(join(pluginDir(home), 'hooks.json'))).toBe(bad);
  });

  it("the installed command answers in Antigravity's wire, and fails closed there when hermes cannot run", async () => {
    const home = tree({ '.hermes/extensions/guard.ts': guard });
    expect((await hermes(home, 'hook', 'install', 'antigravity')).code).toBe(0);
    const installed = JSON.parse(read(join(pluginDir(home), 'hooks.json')))['hermes-extensions']
      .PreToolUse[0].hooks[0].command as string;
    const env = { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0' };
    const call = JSON.stringify({
      conversationId: 'c',
      stepIdx: 1,
      toolCall: { name: 'run_command', args: { CommandLine: 'cat secret.txt' } },
      workspacePaths: [tree({ '.git/HEAD': '' })],
    });
    const run = (command: string, stdin: string) =>
      runProcess('/bin/sh', ['-c', command], { env, stdin });
    const answered = await run(installed, call);
    expect(JSON.parse(answered.stdout)).toEqual({ decision: 'deny', reason: 'no secrets' });
    // The same command with a Node and a package that are gone.
    const gone = wrappedHookCommand('antigravity', [
      '/gone/node',
      '/gone/hermes-extensions/bin/hermes.js',
      'hook',
      'antigravity',
    ]);
    for (const stdin of [call, 'not json']) {
      const failed = await run(gone, stdin);
      expect(failed.code).toBe(0);
      const answer = JSON.parse(failed.stdout);
      expect(answerSchema('antigravity', 'PreToolUse').safeParse(answer).error).toBeUndefined();
      expect(answer).toEqual({
        decision: 'deny',
        reason:
          'Hermes could not check this call, so it is refused: /gone/node is missing (Node.js moved or was removed): run hermes hook install antigravity again',
      });
    }
  });

  it('doctor lists the Antigravity hook, and says its subagents are not covered', async () => {
    const home = tree({ '.hermes/extensions/guard.ts': guard });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'antigravity')).code).toBe(0);
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(
      /✓ Antigravity hook \(.*plugins\/hermes-extensions\/hooks\.json\): runs the hermes hook for PreToolUse/,
    );
    expect(doctor.stdout).toMatch(/Antigravity subagents: not covered/);
    expect(antigravity.installEvents).toEqual(['PreToolUse']);
  });
});
