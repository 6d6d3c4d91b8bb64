import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermesWith } from './hermes-cli.js';

type Check = { level: string; subject: string; message: string; fix?: string };

/**
 * doctor asks the installed agent for its version (a `claude` on the PATH that prints the version
 * the test sets) and says whether that version's subagents are covered, and what not being
 * covered means under workflow-guard.
 */
function fakeClaude(printed: string): Record<string, string> {
  const bin = tree({ claude: `#!/bin/sh\necho '${printed}'\n` });
  chmodSync(join(bin, 'claude'), 0o755);
  return { PATH: `${bin}:${process.env.PATH ?? ''}` };
}

const guardHome = () =>
  tree({ 'config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n' });

async function subagentLine(
  printed: string,
  home = guardHome(),
  { install = true, text = false } = {},
): Promise<{ check: Check | undefined; text: string }> {
  const env = fakeClaude(printed);
  if (install) {
    const installed = await hermesWith(env, home, 'hook', 'install', 'claude-code');
    expect(installed.code, installed.stderr).toBe(0);
  }
  const project = tree({ '.git/HEAD': '' });
  const json = await hermesWith(env, home, 'extensions', 'doctor', '--json', '--cwd', project);
  const { checks } = JSON.parse(json.stdout) as { checks: Check[] };
  const shown = text
    ? await hermesWith(env, home, 'extensions', 'doctor', '--cwd', project)
    : undefined;
  return {
    check: checks.find((c) => c.subject === 'Claude Code subagents'),
    text: shown?.stdout ?? '',
  };
}

describe.runIf(built)(
  'hermes extensions doctor: are the installed agent’s subagents covered',
  () => {
    it('says a covered version is covered', async () => {
      const { check, text } = await subagentLine('2.1.330 (Claude Code)', guardHome(), {
        text: true,
      });
      expect(check).toMatchObject({
        level: 'ok',
        message: expect.stringContaining(
          'Claude Code 2.1.330 sends each tool call of its subagents to the hook',
        ),
      });
      expect(check?.message).toContain('workflow-guard lets a subagent start before a plan');
      expect(text).toMatch(/✓ Claude Code subagents: Claude Code 2\.1\.330 sends/);
    });

    it('warns about a version whose subagent calls come without agent_id, with the upgrade', async () => {
      const { check, text } = await subagentLine('2.1.50 (Claude Code)', guardHome(), {
        text: true,
      });
      expect(check).toMatchObject({
        level: 'warning',
        message: expect.stringMatching(/^not covered: Claude Code 2\.1\.50: .*agent_id/),
        fix: 'upgrade Claude Code to 2.1.120 or later',
      });
      expect(check?.message).toContain(
        'workflow-guard refuses every call that starts a subagent until a plan exists',
      );
      expect(text).toMatch(/! Claude Code subagents: not covered/);
      expect(text).toContain('fix: upgrade Claude Code to 2.1.120 or later');
    });

    it('warns about a version that sends agent_id but does not tell its hooks its version', async () => {
      const { check } = await subagentLine('2.1.100 (Claude Code)');
      expect(check).toMatchObject({
        level: 'warning',
        message: expect.stringContaining(
          'Claude Code 2.1.100 does not tell its hooks which version runs (from 2.1.120 it does)',
        ),
        fix: 'upgrade Claude Code to 2.1.120 or later',
      });
    });

    it('fails closed when the program prints no version, and names no guard not enabled', async () => {
      const { check } = await subagentLine('Claude Code', tree());
      expect(check).toMatchObject({
        level: 'warning',
        message: expect.stringContaining('`claude --version` printed no version'),
      });
      expect(check?.message).not.toContain('workflow-guard');
      expect(check?.fix).toBeUndefined();
    });

    it('says a program not on the PATH is not found, and never names an upgrade', async () => {
      const home = guardHome();
      // A PATH with no `claude` on it: doctor cannot ask which version a new session runs.
      const env = { PATH: tree() };
      expect((await hermesWith(env, home, 'hook', 'install', 'claude-code')).code).toBe(0);
      const project = tree({ '.git/HEAD': '' });
      const json = await hermesWith(env, home, 'extensions', 'doctor', '--json', '--cwd', project);
      const { checks } = JSON.parse(json.stdout) as { checks: Check[] };
      const check = checks.find((c) => c.subject === 'Claude Code subagents');
      expect(check).toMatchObject({
        level: 'info',
        message: expect.stringContaining('`claude` is not found on the PATH'),
      });
      expect(check?.message).toContain('the hook tells from each session');
      expect(JSON.stringify(check)).not.toMatch(/upgrade|printed no version/i);
      const text = await hermesWith(env, home, 'extensions', 'doctor', '--cwd', project);
      expect(text.stdout).toContain('not found on the PATH');
      expect(text.stdout).not.toMatch(/upgrade Claude Code/);
    });

    it('says nothing without an installed hook', async () => {
      const { check } = await subagentLine('2.1.50 (Claude Code)', guardHome(), { install: false });
      expect(check).toBeUndefined();
    });
  },
);
