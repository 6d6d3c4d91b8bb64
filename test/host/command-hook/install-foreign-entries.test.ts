import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';

/**
 * A settings file is the user's: an event entry that `hermes hook install` does not understand (an
 * object or a string where the agent reads a list, or an entry in that list of a form it does not
 * know) is refused — a clear error naming the file, the key and what was expected, a non-zero exit
 * and nothing written — never replaced by the hermes hook; and uninstall, which then finds nothing
 * of hermes's, leaves the file as it is.
 */
const hermes = (home: string, ...args: string[]) =>
  runBin(args, {
    HOME: home,
    HERMES_HOME: join(home, '.hermes'),
    CODEX_HOME: '',
    HERMES_DAEMON: '0',
  });

/** Each agent's user-wide file, an event install registers, and a command of the user's there. */
const AGENTS = [
  {
    agent: 'claude-code',
    file: '.claude/settings.json',
    event: 'PreToolUse',
    object: { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] },
    badItem: { matcher: 'Bash', hooks: { type: 'command', command: 'my-check' } },
    expected: 'a list of { matcher, hooks: [...] } entries',
  },
  {
    agent: 'codex',
    file: '.codex/hooks.json',
    event: 'PreToolUse',
    object: { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] },
    badItem: { matcher: 'Bash', hooks: 'my-check' },
    expected: 'a list of { matcher, hooks: [...] } entries',
  },
  {
    agent: 'cursor',
    file: '.cursor/hooks.json',
    event: 'preToolUse',
    object: { command: 'my-check' },
    badItem: { command: ['my-check'] },
    expected: 'a list of { command } entries',
  },
] as const;

describe.runIf(built)('hermes hook install with an entry it does not understand', () => {
  for (const { agent, file, event, object, badItem, expected } of AGENTS) {
    const shapes: Array<[string, unknown]> = [
      ['an object', object],
      ['a string', 'my-check'],
      ['a list holding an entry of another form', [badItem]],
      ['a list holding a string', ['my-check']],
    ];
    for (const [shape, value] of shapes) {
      it(`${agent}: hooks.${event} is ${shape}: refused, the file untouched, uninstall keeps it`, async () => {
        const text = `${JSON.stringify({ ...(agent === 'cursor' ? { version: 1 } : {}), model: 'mine', hooks: { [event]: value } }, null, 2)}\n`;
        const home = tree({ [file]: text });
        const path = join(home, file);
        const installed = await hermes(home, 'hook', 'install', agent);
        expect(installed.code, installed.stdout).not.toBe(0);
        // The file, the key and what was expected, and how to proceed.
        expect(installed.stderr).toContain(path);
        expect(installed.stderr).toContain(`hooks.${event}`);
        expect(installed.stderr).toContain(expected);
        expect(installed.stderr).toMatch(/nothing was written/);
        expect(readFileSync(path, 'utf8')).toBe(text);
        const uninstalled = await hermes(home, 'hook', 'uninstall', agent);
        expect(uninstalled.code, uninstalled.stderr).toBe(0);
        expect(existsSync(path)).toBe(true);
        expect(readFileSync(path, 'utf8')).toBe(text);
      });
    }
  }

  for (const [shape, value] of [
    ['a mapping', '\n    command: my-check'],
    ['a string', ' my-check'],
  ]) {
    it(`hermes-agent: hooks.pre_tool_call is ${shape}: refused, the file untouched`, async () => {
      const text = `model: mine\nhooks:\n  pre_tool_call:${value}\n`;
      const home = tree({ '.hermes/config.yaml': text });
      const path = join(home, '.hermes/config.yaml');
      const installed = await hermes(home, 'hook', 'install', 'hermes-agent');
      expect(installed.code, installed.stdout).not.toBe(0);
      expect(installed.stderr).toContain(path);
      expect(installed.stderr).toContain('hooks.pre_tool_call');
      expect(installed.stderr).toMatch(/not a list of \{ command, .*nothing was written/);
      expect(readFileSync(path, 'utf8')).toBe(text);
      const uninstalled = await hermes(home, 'hook', 'uninstall', 'hermes-agent');
      expect(uninstalled.code, uninstalled.stderr).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(text);
    });
  }

  it("claude-code: uninstall after install gives back the user's other events, whatever their form", async () => {
    // An event install does not register may hold anything: install leaves it as it is, and so
    // does uninstall, which never removes a file still holding the user's.
    const text = `${JSON.stringify({ hooks: { Notification: { command: 'notify-me' } } }, null, 2)}\n`;
    const home = tree({ '.claude/settings.json': text });
    const path = join(home, '.claude/settings.json');
    const installed = await hermes(home, 'hook', 'install', 'claude-code');
    expect(installed.code, installed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8')).hooks.Notification).toEqual({
      command: 'notify-me',
    });
    const uninstalled = await hermes(home, 'hook', 'uninstall', 'claude-code');
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
