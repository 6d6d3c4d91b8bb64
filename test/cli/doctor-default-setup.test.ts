import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermesWith } from './hermes-cli.js';

type Check = { level: string; subject: string; message: string; fix?: string };

/**
 * The default setup: a fresh $HERMES_HOME, the hooks of Claude Code and OpenCode installed as
 * the docs say, a trusted project that enables workflow-guard by name, and no agent program on
 * doctor's PATH. What doctor says about the hooks is then nothing the user could change: worth
 * knowing (info), never a warning.
 */
describe.runIf(built)('hermes extensions doctor on the default setup', () => {
  it('warns about nothing the user cannot act on', async () => {
    const home = tree();
    const env = { PATH: tree(), HERMES_TRUST_PROJECT: '1' };
    for (const agent of ['claude-code', 'opencode']) {
      const installed = await hermesWith(env, home, 'hook', 'install', agent);
      expect(installed.code, installed.stderr).toBe(0);
    }
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    });
    const json = await hermesWith(env, home, 'extensions', 'doctor', '--json', '--cwd', project);
    const { checks } = JSON.parse(json.stdout) as { checks: Check[] };
    const agents = checks.filter((c) => /^(Claude Code|OpenCode) /.test(c.subject));
    // The hooks, the shipped guard's before_llm_call under hooks, and the subagents of each.
    expect(agents.map((c) => c.subject)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Claude Code hook/),
        expect.stringMatching(/^OpenCode hook/),
        'Claude Code subagents',
        'OpenCode subagents',
      ]),
    );
    expect(agents.filter((c) => c.level === 'warning' || c.level === 'error')).toEqual([]);
    const llm = agents.find((c) => c.message.includes('before_llm_call'));
    expect(llm).toMatchObject({ level: 'info' });
    expect(llm?.message).toContain('workflow-guard');
    expect(agents.find((c) => c.subject === 'OpenCode subagents')).toMatchObject({
      level: 'info',
      message: expect.stringContaining('OpenCode tells no version'),
    });
  });
});
