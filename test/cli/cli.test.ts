import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex } from '../../src/host/command-hook/agents.js';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { bin, built, type Answer as Run, runBin, runProcess } from '../support/run-bin.js';

/**
 * The real bin in a child process, with its own $HERMES_HOME (and $HOME, so the user's own agent
 * settings stay out of doctor's checks) and no TTY.
 */
function hermes(home: string, ...args: string[]): Promise<Run> {
  return runBin(args, {
    HERMES_HOME: home,
    HOME: home,
    CODEX_HOME: '',
    CLAUDE_CONFIG_DIR: '',
    HERMES_TRUST_PROJECT: '',
  });
}

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => e.toolArgs.path === 'secret' ? block('no secrets') : undefined, { tools: ['write'] });`,
);
const rewriter = tsExtension(
  'rewriter',
  `hermes.on('transform_user_input', (e) => ({ action: 'rewrite', value: e.userMessage.toUpperCase() }));`,
);

// The bin runs the build that `npm install` makes.
describe.runIf(built)('hermes bin', () => {
  it('prints usage with --help and no arguments, the version with --version', async () => {
    const home = tree();
    for (const args of [
      ['--help'],
      [],
      ['extensions', '--help'],
      ['extensions', 'list', '--help'],
    ]) {
      const run = await hermes(home, ...args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toMatch(/Usage: hermes/);
    }
    expect((await hermes(home, '--version')).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 with a message on an unknown command or option', async () => {
    const home = tree();
    const unknown = await hermes(home, 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    const option = await hermes(home, 'extensions', 'list', '--frob');
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--frob'/);
  });

  it('exits 2 naming the file when a config cannot be read', async () => {
    const home = tree({ 'config.yaml': 'extensions: [broken\n' });
    const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(join(home, 'config.yaml'));
  });
});

describe.runIf(built)('hermes extensions list', () => {
  it('shows every extension in an aligned table, with status, source, version and hooks', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  disabled: [rewriter]\n',
      'extensions/guard.ts': guard,
      'extensions/rewriter.ts': rewriter,
      'extensions/broken.ts': 'export default {',
    });
    const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+SOURCE\s+VERSION\s+HOOKS(\s+DESCRIPTION)?$/);
    expect(lines.find((l) => l.startsWith('guard'))).toMatch(
      /^guard\s+enabled\s+global\s+1\.0\.0\s+intercept_tool_call@100\[write\]/,
    );
    expect(lines.find((l) => l.startsWith('rewriter'))).toMatch(/disabled/);
    expect(lines.find((l) => l.startsWith('broken'))).toMatch(/error/);
    // Rows, not the lines that wrap under them (test/cli/list-fits.test.ts).
    const rows = lines.filter((l) => !l.startsWith(' '));
    const statusColumn = rows.map((l) => l.indexOf(l.split(/\s+/)[1] as string));
    expect(new Set(statusColumn).size).toBe(1);
    expect(run.stdout).not.toContain('\u001b[');
  });

  it('prints a JSON array with --json', async () => {
    const home = tree({ 'extensions/guard.ts': guard });
    const run = await hermes(home, 'extensions', 'list', '--json', '--cwd', tree());
    expect(JSON.parse(run.stdout)).toMatchObject([
      {
        name: 'guard',
        status: 'enabled',
        source: 'global',
        version: '1.0.0',
        hooks: [{ hook: 'intercept_tool_call', priority: 100, tools: ['write'] }],
      },
    ]);
  });

  it("shows a validator's phase in the table and in --json", async () => {
    const home = tree({
      'extensions/checker.ts': tsExtension(
        'checker',
        `hermes.on('intercept_tool_call', () => undefined, { phase: 'validate', priority: 5, tools: ['write'] });
        hermes.on('intercept_tool_call', () => undefined);`,
      ),
    });
    const table = await hermes(home, 'extensions', 'list', '--cwd', tree());
    expect(table.stdout).toMatch(
      /checker\s+enabled\s+global\s+1\.0\.0\s+intercept_tool_call@5:validate\[write\]\s+intercept_tool_call@100\b/,
    );
    const json = await hermes(home, 'extensions', 'list', '--json', '--cwd', tree());
    expect(JSON.parse(json.stdout)[0].hooks).toEqual([
      { hook: 'intercept_tool_call', priority: 5, phase: 'validate', tools: ['write'] },
      { hook: 'intercept_tool_call', priority: 100 },
    ]);
  });

  it('reports an untrusted project with the command that trusts it', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const run = await hermes(tree(), 'list', '--cwd', project);
    expect(run.stdout).toMatch(/local\s+untrusted\s+project/);
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${project}`);
  });
});

describe.runIf(built)('hermes extensions doctor', () => {
  it('says all is healthy and exits 0', async () => {
    const home = tree({ 'extensions/guard.ts': guard, 'config.yaml': '# nothing yet\n' });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /✓ guard \(global, .*\): loaded and set up in [\d.]+ ms, 1 handler\(s\)/,
    );
    expect(run.stdout).toMatch(/✓ dry run: \d+ sample call\(s\)/);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('All 1 extensions look healthy.');
  });

  it('finds a broken extension, a bad hook name, bad config, shared priorities and a throwing handler', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  configured:\n    level: high\n',
      'extensions/guard.ts': guard,
      'extensions/syntax.ts': 'export default {',
      'extensions/typo.ts': tsExtension(
        'typo',
        `hermes.on('intercept_toolcall' as never, () => undefined);`,
      ),
      'extensions/configured.ts': `import { defineExtension } from 'hermes-extensions';\nimport { z } from 'zod';\nexport default defineExtension({ name: 'configured', configSchema: z.object({ level: z.number() }), setup() {} });`,
      'extensions/thrower.ts': tsExtension(
        'thrower',
        `hermes.on('intercept_tool_call', () => { throw new Error('kaboom'); }, { tools: ['write'] });`,
      ),
    });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✗ syntax \(global.*could not load/);
    expect(run.stdout).toMatch(/✗ typo .*Did you mean "intercept_tool_call"/);
    expect(run.stdout).toMatch(/✗ configured [\s\S]*?extensions\.configured\.level/);
    expect(run.stdout).toContain(`config for "configured" in ${join(home, 'config.yaml')} does`);
    expect(run.stdout).toMatch(/i intercept_tool_call priority 100: guard, thrower share it/);
    expect(run.stdout).toMatch(/✗ thrower in intercept_tool_call: the dry run failed: .*kaboom/);
    expect(run.stdout).toMatch(/fix: /);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^\d+ problem\(s\) found(, and \d+ warning\(s\))?\.$/,
    );
    const json = await hermes(home, 'extensions', 'doctor', '--json', '--cwd', tree());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).errors).toBeGreaterThanOrEqual(4);
  });
});

describe.runIf(built)("hermes extensions doctor and the agents' hooks", () => {
  // Five doctor runs, each starting the hermes of every hook in the user's settings (--version).
  it('checks the hooks installed in Claude Code and Codex, and install mends a stale one', {
    timeout: 180_000,
  }, async () => {
    const home = tree({ 'extensions/guard.ts': guard });
    const project = tree({ '.git/HEAD': '' });
    const doctor = () => hermes(home, 'extensions', 'doctor', '--cwd', project);
    // No agent hooks installed: nothing to say about them.
    expect((await doctor()).stdout).not.toMatch(/hook \(/);

    expect((await hermes(home, 'hook', 'install', 'claude-code')).code).toBe(0);
    const installed = await doctor();
    expect(installed.code).toBe(0);
    expect(installed.stdout).toMatch(
      /✓ Claude Code hook \(.*\.claude\/settings\.json\): runs the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, SubagentStart, SubagentStop, Stop, SessionEnd/,
    );

    // A project whose Codex hook was installed by a Node and a package that are gone since, and
    // only for Stop.
    const stale = '"/gone/bin/node" "/gone/hermes-extensions/bin/hermes.js" hook codex';
    write(project, {
      '.codex/hooks.json': JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: 'command', command: stale }] }],
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] }],
        },
      }),
    });
    const broken = await doctor();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /✗ Codex hook \(.*\.codex\/hooks\.json\): its command runs \/gone\/bin\/node and \/gone\/hermes-extensions\/bin\/hermes\.js, which no longer exist/,
    );
    expect(broken.stdout).toContain(`fix: hermes hook install codex --project --cwd ${project}`);

    const mended = await hermes(home, 'hook', 'install', 'codex', '--project', '--cwd', project);
    expect(mended.stdout).toMatch(
      /Added the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse to/,
    );
    expect(mended.stdout).toMatch(/Updated the hermes hook's command for Stop in/);
    const hooks = JSON.parse(readFileSync(join(project, '.codex/hooks.json'), 'utf8')).hooks;
    // The project's command: its own node_modules/.bin/hermes, no path of this machine.
    expect(hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: codex.projectCommand }] }]);
    expect(JSON.stringify(hooks)).not.toContain('/gone/');
    expect(hooks.PreToolUse[0]).toEqual({
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'my-check' }],
    });
    // ... which the project must have installed.
    const notInstalled = await doctor();
    expect(notInstalled.code).toBe(1);
    expect(notInstalled.stdout).toContain(
      `its command runs the project's ${join(project, 'node_modules/.bin/hermes')}, which is not installed`,
    );
    // doctor reads what it links to (test/cli/doctor-hook-start.test.ts): the real package.
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules/.bin/hermes'));
    const healthy = await doctor();
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toMatch(
      /✓ Codex hook \(.*\): runs the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop/,
    );
  });

  it('says what a Claude Code hook installed before PostToolUseFailure misses, and install adds it', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'claude-code')).code).toBe(0);
    const file = join(home, '.claude/settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    delete settings.hooks.PostToolUseFailure;
    write(home, { '.claude/settings.json': JSON.stringify(settings) });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toMatch(
      /! Claude Code hook \(.*\): not registered for PostToolUseFailure: a failed tool's error reaches the model without what transform_tool_result adds to it/,
    );
    const again = await hermes(home, 'hook', 'install', 'claude-code');
    expect(again.stdout).toMatch(/Added the hermes hook for PostToolUseFailure/);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).hooks)).toContain(
      'PostToolUseFailure',
    );
  });

  // Claude Code's config directory is "$CLAUDE_CONFIG_DIR or ~/.claude": with the variable set,
  // a hook in ~/.claude/settings.json would never run.
  it("installs Claude Code's hooks where CLAUDE_CONFIG_DIR puts its settings, and doctor checks them there", async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const config = join(home, 'claude-work');
    const env = { HERMES_HOME: home, HOME: home, CODEX_HOME: '', CLAUDE_CONFIG_DIR: config };
    const installed = await runBin(['hook', 'install', 'claude-code'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(join(config, 'settings.json'));
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(false);
    const file = join(config, 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(settings.hooks)).toContain('PreToolUse');
    delete settings.hooks.SessionStart;
    write(config, { 'settings.json': JSON.stringify(settings) });
    const run = await runBin(['extensions', 'doctor', '--cwd', project], env);
    expect(run.stdout).toMatch(/! Claude Code hook \(.*\): not registered for SessionStart/);
  });

  it('says what a hook installed before SessionStart misses, and install adds it', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'claude-code')).code).toBe(0);
    const file = join(home, '.claude/settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    delete settings.hooks.SessionStart;
    write(home, { '.claude/settings.json': JSON.stringify(settings) });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toMatch(
      /! Claude Code hook \(.*\): not registered for SessionStart: a session's first prompt waits for the project's extensions to load/,
    );
    const again = await hermes(home, 'hook', 'install', 'claude-code');
    expect(again.stdout).toMatch(/Added the hermes hook for SessionStart to/);
  });

  it('says what before_llm_call handlers get in hook mode, and that a hook without PostToolBatch runs them at the prompt only', async () => {
    const home = tree({
      // The Hermes agent runs its hooks unasked (doctor would report them unapproved otherwise).
      'config.yaml': 'hooks_auto_accept: true\n',
      'extensions/reminder.ts': tsExtension(
        'reminder',
        `hermes.on('before_llm_call', () => injectSystem('Plan first.'));`,
        `import { injectSystem } from 'hermes-extensions';`,
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'codex')).code).toBe(0);
    expect((await hermes(home, 'hook', 'install', 'cursor')).code).toBe(0);
    expect((await hermes(home, 'hook', 'install', 'hermes-agent')).code).toBe(0);
    const command = 'hermes hook claude-code';
    const entry = [{ hooks: [{ type: 'command', command }] }];
    write(home, {
      '.claude/settings.json': JSON.stringify({
        hooks: {
          UserPromptSubmit: entry,
          PreToolUse: entry,
          PostToolUse: entry,
          Stop: entry,
          SessionEnd: entry,
        },
      }),
    });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /! Claude Code hook \(.*\): not registered for SessionStart, PostToolUseFailure, PostToolBatch, SubagentStart, SubagentStop: before_llm_call does not run after tool results/,
    );
    expect(run.stdout).toMatch(
      /! Codex hook \(.*\): reminder handles before_llm_call, which runs at the prompt and after each tool result: injections are delivered as context; if it rewrites messages, that is not applied in hook mode; restrictTools has no effect under Codex hooks \(the call-time checks still apply\)/,
    );
    // Cursor takes no context from a hook; the Hermes agent's hooks run it at the prompt only.
    expect(run.stdout).toMatch(
      /! Cursor hook \(.*\): reminder handles before_llm_call, which runs at the prompt only: injections are not delivered \(Cursor takes no context from a hook\)/,
    );
    expect(run.stdout).toMatch(
      /! Hermes agent hook \(.*\): reminder handles before_llm_call, which runs at the prompt only: injections are delivered as context/,
    );
  });

  it('says where a transform_final_answer gate runs: at the Stop of Codex, nowhere under Cursor', async () => {
    const home = tree({
      'extensions/claims.ts': tsExtension(
        'claims',
        `hermes.on('transform_final_answer', () => block('check first'));`,
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'codex')).code).toBe(0);
    expect((await hermes(home, 'hook', 'install', 'cursor')).code).toBe(0);
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toMatch(
      /! Codex hook \(.*\): claims handles transform_final_answer, which runs at Codex's Stop after the answer is shown: a block keeps the agent going with the reason; a rewrite is not applied/,
    );
    expect(run.stdout).toMatch(
      /! Cursor hook \(.*\): claims handles transform_final_answer, which does not run under Cursor hooks/,
    );
  });

  it('warns about a hook that leaves out tool calls', async () => {
    const home = tree();
    write(home, {
      '.claude/settings.json': JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'hermes hook claude-code' }] }] },
      }),
    });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(run.stdout).toMatch(
      /! Claude Code hook \(.*\): not registered for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, SubagentStart, SubagentStop, SessionEnd: tool calls are not checked/,
    );
  });
});

describe.runIf(built)('hermes extensions enable / disable', () => {
  it('edits the YAML config keeping comments and layout, creating it if needed', async () => {
    const original =
      '# my settings\nmodel: claude # the default model\n\nextensions:\n  # guards I trust\n  guard:\n    strict: true # keep\n';
    const home = tree({
      'config.yaml': original,
      'extensions/guard.ts': guard,
      'extensions/rewriter.ts': rewriter,
    });
    const cwd = tree();
    const off = await hermes(home, 'extensions', 'disable', 'guard', '--cwd', cwd);
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(
      /Disabled guard in .*config\.yaml\. It takes effect on the next session\./,
    );
    const edited = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(edited).toContain('# my settings\nmodel: claude # the default model\n');
    expect(edited).toContain('  # guards I trust\n  guard:\n    strict: true # keep\n');
    expect(edited).toMatch(/disabled:\n\s+- guard/);
    expect((await hermes(home, 'extensions', 'list', '--json', '--cwd', cwd)).stdout).toMatch(
      /"status": "disabled"/,
    );
    await hermes(home, 'extensions', 'disable', 'rewriter', '--cwd', cwd);
    const on = await hermes(home, 'extensions', 'enable', 'guard', '--cwd', cwd);
    expect(on.code).toBe(0);
    const after = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(after).toContain('# my settings\nmodel: claude # the default model\n');
    expect(after).toMatch(/disabled:\n\s+- rewriter\n/);
    expect(after).not.toMatch(/- guard/);
  });

  it('writes the project config with --project, creating it', async () => {
    const home = tree({ 'extensions/guard.ts': guard });
    const project = tree({ '.git/HEAD': '' });
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(0);
    expect(readFileSync(join(project, '.hermes/config.yaml'), 'utf8')).toBe(
      'extensions:\n  disabled:\n    - guard\n',
    );
  });

  it('rejects an unknown name with a suggestion, exit 2', async () => {
    const home = tree({ 'extensions/guard.ts': guard });
    const run = await hermes(home, 'extensions', 'disable', 'gaurd', '--cwd', tree());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown extension "gaurd"\. Did you mean "guard"\?/);
    expect(existsSync(join(home, 'config.yaml'))).toBe(false);
  });
});

describe.runIf(built)('hermes extensions test', () => {
  const home = () => tree({ 'extensions/guard.ts': guard, 'extensions/rewriter.ts': rewriter });

  it('shows each decision and exits 1 when blocked, 0 when not', async () => {
    const h = home();
    const blocked = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"toolName":"write","toolArgs":{"path":"secret"}}',
      '--cwd',
      tree(),
    );
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toMatch(/1\. guard\s+block\s+[\d.]+ ms/);
    expect(blocked.stdout).toMatch(/BLOCKED by guard:\n\s+no secrets/);
    const passed = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"toolName":"write","toolArgs":{"path":"ok.ts"}}',
      '--cwd',
      tree(),
    );
    expect(passed.code).toBe(0);
    expect(passed.stdout).toMatch(/PASSED/);
  });

  it('shows what a handler changed as a diff', async () => {
    const run = await hermes(
      home(),
      'extensions',
      'test',
      'transform_user_input',
      '--input',
      '{"userMessage":"fix it"}',
      '--cwd',
      tree(),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/1\. rewriter\s+rewrite/);
    expect(run.stdout).toMatch(/-fix it\n\s+\+FIX IT/);
  });

  it('prints { outcome } with --json', async () => {
    const run = await hermes(
      home(),
      'extensions',
      'test',
      'intercept_tool_call',
      '--json',
      '--session',
      'abc',
      '--input',
      '{"toolName":"write","toolArgs":{"path":"secret"}}',
      '--cwd',
      tree(),
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: { blocked: true, blockedBy: 'guard', message: 'no secrets', changed: false },
    });
  });

  it('prints an ask (who asked, why) and exits 0; prints the tools a request has left and who hid which', async () => {
    const h = tree({
      'extensions/policy.ts': tsExtension(
        'policy',
        `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).startsWith('deploy/') ? ask('deploy files are reviewed') : undefined);
         hermes.on('before_llm_call', () => restrictTools(['read'], 'read-only for now'));`,
        `import { ask, restrictTools } from 'hermes-extensions';`,
      ),
    });
    const asked = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"toolName":"write","toolArgs":{"path":"deploy/app.yaml"}}',
      '--cwd',
      tree(),
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/1\. policy\s+ask\s+[\d.]+ ms/);
    expect(asked.stdout).toMatch(
      /NEEDS APPROVAL: policy asks a person before this call runs:\n\s+deploy files are reviewed\nthe call as it would run: \{/,
    );
    const json = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--json',
      '--input',
      '{"toolName":"write","toolArgs":{"path":"deploy/app.yaml"}}',
      '--cwd',
      tree(),
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).outcome).toMatchObject({
      blocked: false,
      ask: { message: 'deploy files are reviewed', askedBy: 'policy' },
    });
    const restricted = await hermes(
      h,
      'extensions',
      'test',
      'before_llm_call',
      '--input',
      '{"system_prompt":"S","messages":[{"role":"user","content":"hi"}],"tools":["read","write","grep"]}',
      '--cwd',
      tree(),
    );
    expect(restricted.code, restricted.stderr).toBe(0);
    expect(restricted.stdout).toMatch(/1\. policy\s+restrict_tools/);
    expect(restricted.stdout).toMatch(
      /tools left: read\n\s+policy hid write, grep \(read-only for now\)/,
    );
  });

  it('exits 2 on an unknown hook, bad JSON, or a payload that does not fit', async () => {
    const h = home();
    const hook = await hermes(h, 'extensions', 'test', 'intercept_tool_cal', '--input', '{}');
    expect(hook.code).toBe(2);
    expect(hook.stderr).toMatch(/Did you mean "intercept_tool_call"/);
    const json = await hermes(h, 'extensions', 'test', 'intercept_tool_call', '--input', '{nope');
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/not valid JSON/);
    const shape = await hermes(
      h,
      'extensions',
      'test',
      'before_llm_call',
      '--input',
      '{"messages":1}',
    );
    expect(shape.code).toBe(2);
    expect(shape.stderr).toMatch(/does not fit before_llm_call/);
  });

  it("takes the bridge's snake_case names too, and names the field that does not fit", async () => {
    const h = home();
    const snake = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"tool_name":"write","tool_args":{"path":"secret"}}',
      '--cwd',
      tree(),
    );
    expect(snake.code).toBe(1);
    expect(snake.stdout).toMatch(/BLOCKED by guard/);
    const missing = await hermes(
      h,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"tool_name":"write"}',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not fit intercept_tool_call: tool_args must be an object/);
    expect(missing.stderr).toMatch(/e\.g\. --input '\{"toolName":"write","toolArgs":\{/);
    const wrong = await hermes(
      h,
      'extensions',
      'test',
      'before_llm_call',
      '--input',
      '{"systemPrompt":"S","messages":[{"role":"user","content":"hi"}, 5]}',
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/does not fit before_llm_call: messages\[1\] must be an object/);
  });
});

describe.runIf(built)('hermes extensions init', () => {
  it('scaffolds an extension that loads and passes doctor', async () => {
    const home = tree();
    const run = await hermes(home, 'extensions', 'init', 'my-guard');
    expect(run.code).toBe(0);
    expect(existsSync(join(home, 'extensions/my-guard/index.ts'))).toBe(true);
    expect(readFileSync(join(home, 'extensions/my-guard/index.test.ts'), 'utf8')).toContain(
      "from 'hermes-extensions/testing'",
    );
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(/✓ my-guard .*4 handler\(s\)/);
    expect((await hermes(home, 'extensions', 'init', 'my-guard')).code).toBe(2);
    expect((await hermes(home, 'extensions', 'init', 'Bad_Name')).code).toBe(2);
  });

  it('scaffolds into the project with --project', async () => {
    const project = tree({ '.git/HEAD': '' });
    const run = await hermes(
      tree(),
      'extensions',
      'init',
      'local-guard',
      '--project',
      '--cwd',
      project,
    );
    expect(run.code).toBe(0);
    expect(existsSync(join(project, '.hermes/extensions/local-guard/index.ts'))).toBe(true);
  });
});

describe.runIf(built)('hermes extensions trust', () => {
  it('goes untrusted → trusted → changed file → held (the trusted one runs), and can be revoked', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const list = () => hermes(home, 'extensions', 'list', '--cwd', project);
    expect((await list()).stdout).toMatch(/local\s+untrusted/);
    const refused = await hermes(home, 'extensions', 'trust', '--cwd', project);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(join(project, '.hermes/extensions/local.ts'));
    expect(refused.stderr).toMatch(/re-run with --yes/);
    const trusted = await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(/Trusted .* \(fingerprint [0-9a-f]{16}\)/);
    expect((await list()).stdout).toMatch(/local\s+enabled\s+project/);
    write(project, {
      '.hermes/extensions/local.ts': tsExtension('local', 'console.log("changed")'),
    });
    // The extension as trusted runs until the change is trusted (docs/trust.md).
    const changed = await list();
    expect(changed.stdout).toMatch(/local\s+enabled\s+project/);
    expect(changed.stdout).toMatch(/changed since it was trusted.*in force \(held\)/);
    await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    const revoked = await hermes(home, 'extensions', 'trust', '--revoke', '--cwd', project);
    expect(revoked.stdout).toMatch(/revoked/);
    expect((await list()).stdout).toMatch(/local\s+untrusted/);
  });
});

/** The bin on a pseudo-terminal (under `script`), answering `answer` when it asks y/N. */
function onTerminal(home: string, args: string, answer: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', `"${process.execPath}" "${bin}" ${args}`, '/dev/null'], {
      env: { ...process.env, HERMES_HOME: home },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const before = stdout;
      stdout += chunk.toString();
      if (!before.includes('[y/N]') && stdout.includes('[y/N]')) child.stdin.write(`${answer}\n`);
    });
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code: code ?? -1, stdout, stderr: '' });
    });
  });
}

describe.runIf(built)('hermes extensions trust on a terminal', () => {
  it('asks, and trusts only on yes', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const declined = await onTerminal(home, `extensions trust --cwd "${project}"`, '');
    expect(declined.stdout).toContain(join(project, '.hermes/extensions/local.ts'));
    expect(declined.stdout).toMatch(/Trust this project\? \[y\/N\]/);
    expect(declined.stdout).toMatch(/Not trusted\./);
    expect(declined.code).toBe(1);
    const list = () => hermes(home, 'extensions', 'list', '--cwd', project);
    expect((await list()).stdout).toMatch(/local\s+untrusted/);
    const accepted = await onTerminal(home, `extensions trust --cwd "${project}"`, 'y');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/Trusted .* \(fingerprint [0-9a-f]{16}\)/);
    expect((await list()).stdout).toMatch(/local\s+enabled\s+project/);
  });
});

describe.runIf(built)('output that pipes', () => {
  it('ends quietly when the reader closes the pipe early', async () => {
    const home = tree(
      Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [
          `extensions/e${i}.mjs`,
          `export default { name: 'e${i}', setup() {} };`,
        ]),
      ),
    );
    const run = await runProcess(
      '/bin/sh',
      [
        '-c',
        `"${process.execPath}" "${bin}" extensions list --cwd "${tree()}" | head -1; exit \${PIPESTATUS:-0}`,
      ],
      { env: { HERMES_HOME: home } },
    );
    expect(run.stdout).toMatch(/^NAME/);
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled/);
  });

  it('colours only on a terminal, and never with NO_COLOR', async () => {
    const home = tree({ 'extensions/guard.ts': guard });
    const onTty = async (extra: string) =>
      (
        await runProcess(
          'script',
          [
            '-qec',
            `${extra} "${process.execPath}" "${bin}" extensions list --cwd "${tree()}"`,
            '/dev/null',
          ],
          { env: { HERMES_HOME: home, NO_COLOR: undefined } },
        )
      ).stdout;
    expect(await onTty('')).toContain('\u001b[32menabled');
    expect(await onTty('NO_COLOR=1')).not.toContain('\u001b[');
  });
});
