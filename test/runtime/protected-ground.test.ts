import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createRuntime, defineExtension } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { tree } from '../support/fixtures.js';

/**
 * Protected ground (docs/trust.md): the framework itself refuses a tool call that would change
 * what decides the guards, before any handler, with or without a plan and whatever the
 * extensions. Each row is a call an agent with a plan could make to switch its guards off.
 */
let user: string;
let hermesHome: string;
let root: string;

beforeEach(() => {
  user = tree({ '.claude/.keep': '' });
  hermesHome = join(user, 'hermes-home');
  mkdirSync(hermesHome);
  process.env.HOME = user;
  process.env.HERMES_HOME = hermesHome;
  root = tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    '.claude/settings.json': '{}\n',
    'src/a.ts': 'export const a = 1;\n',
    'plans/active/plan.md': '# Plan\n\nGoal: change src/a.ts.\n',
    'package.json': '{"name":"p"}\n',
  });
  // A link into protected ground, made before this turn (the first call of the attack).
  symlinkSync(hermesHome, join(root, 'plans/h'));
});

/** The outcome of one call: with no extension at all, or with workflow-guard and a plan. */
async function decide(
  toolName: string,
  toolArgs: Record<string, unknown>,
  extensions: unknown[] = [],
) {
  const runtime = await createRuntime({
    extensions: extensions as [],
    cwd: root,
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

const WRITERS: Array<[string, (ctx: { root: string; home: string }) => Record<string, unknown>]> = [
  ['Write', () => ({ file_path: '.hermes/config.yaml', content: 'extensions: {}\n' })],
  ['Write', ({ root }) => ({ file_path: join(root, '.hermes/extensions/x.ts'), content: '' })],
  ['Write', () => ({ file_path: 'plans/../.hermes/config.yaml', content: '' })],
  ['Edit', () => ({ file_path: '.claude/settings.json', old_string: '{}', new_string: '{"a":1}' })],
  ['Write', () => ({ file_path: '.claude/settings.local.json', content: '{}' })],
  ['Write', () => ({ file_path: '.cursor/hooks.json', content: '{}' })],
  ['Write', () => ({ file_path: '.codex/hooks.json', content: '{}' })],
  ['Write', () => ({ file_path: '.opencode/plugins/x.js', content: '' })],
  ['Write', () => ({ file_path: 'hermes.config.ts', content: '' })],
  ['Write', () => ({ file_path: 'src/.hermesrc.yaml', content: '' })],
  ['Write', () => ({ file_path: '~/.claude/settings.json', content: '{}' })],
  ['Write', ({ home }) => ({ file_path: join(home, 'trusted-projects.json'), content: '{}' })],
  ['Write', () => ({ file_path: 'plans/h/config.yaml', content: '' })],
  ['delete_file', () => ({ path: '.claude' })],
  ['mcp__fs__write_file', () => ({ path: '.hermes/config.yaml', content: '' })],
  [
    'apply_patch',
    () => ({
      input:
        '*** Begin Patch\n*** Update File: .hermes/config.yaml\n@@\n-extensions:\n+extensions: {}\n*** End Patch\n',
    }),
  ],
];

const COMMANDS = [
  'hermes extensions trust --yes',
  'npx hermes-extensions@latest extensions trust --yes',
  "sh -c 'hermes extensions enable x'",
  'echo . | xargs hermes extensions disable workflow-guard',
  'env FOO=1 hermes hook uninstall claude-code',
  'npm exec -- hermes extensions approvals revoke',
  'node node_modules/hermes-extensions/bin/hermes.js --cwd . extensions trust',
  "python3 -c \"import subprocess; subprocess.run(['hermes','extensions','trust','--yes'])\"",
  // Everything the guard relies on, taken out at once.
  'hermes extensions uninstall --yes',
  'hermes-extensions extensions uninstall --project --yes',
  // The short forms: `hermes trust` is `hermes extensions trust`.
  'hermes uninstall --yes',
  'npx hermes --cwd . uninstall --global --yes',
  'hermes trust --yes',
  'hermes enable workflow-guard',
  // The kill switch is lifted by the user only (docs/teams.md, Kill switch).
  'hermes extensions resume --all',
  "sh -c 'hermes resume --all'",
  'echo x > .hermes/config.yaml',
  'echo x > ~/.hermes/trusted-projects.json',
  'echo x >> "$HERMES_HOME/config.yaml"',
  'echo x > $HOME/.claude/settings.json',
  'cat x | tee .claude/settings.json',
  'cd .hermes && echo x > config.yaml',
  'cp -r x .hermes',
  'mv evil.yaml .hermes/config.yaml',
  'ln -s ~/.hermes plans/h2',
  'rsync -a x/ .hermes/',
  'git checkout -- .hermes',
  'tar xf a.tar -C .cursor',
  'sed -i s/a/b/ .claude/settings.json',
  'install -m 644 x .cursor/hooks.json',
  'mkdir -p .opencode/plugins',
  'echo x > plans/h/config.yaml',
  'echo x > plans/../.hermes/config.yaml',
  "python3 -c \"open('.hermes/config.yaml','w').write('x')\"",
  "node -e \"require('fs').writeFileSync(process.env.HOME+'/.claude/settings.json','{}')\"",
  'cd plans && cp ../x ../.claude/settings.json',
  'mv .claude .claude-old',
  'cd .hermes || true; echo x > config.yaml',
  // A login shell's start-up files (Codex runs each hook with `$SHELL -lc`): named in a program
  // whose writes are not listed, or through the variables that place them.
  "python3 -c \"open(__import__('os').path.expanduser('~/.bash_profile'),'w').write('exit 0')\"",
  "node -e \"require('fs').appendFileSync(process.env.HOME+'/.profile','exit 0')\"",
  'perl -e \'open(F,">>".$ENV{HOME}."/.zshenv")\'',
  'python3 -c "open(\'x\',\'w\')" > "$ZDOTDIR/.zprofile"',
  "node -e \"require('fs').mkdirSync(process.env.HOME+'/.config/fish/conf.d',{recursive:true})\"",
  'echo exit > "$XDG_DATA_HOME/fish/vendor_conf.d/x.fish"',
];

const ALLOWED: Array<[string, Record<string, unknown>]> = [
  ['Read', { file_path: '.hermes/config.yaml' }],
  ['Grep', { pattern: 'x', path: '.hermes' }],
  ['Bash', { command: 'cat .hermes/config.yaml' }],
  ['Bash', { command: 'ls -la ~/.claude' }],
  ['Bash', { command: 'hermes extensions list' }],
  ['Bash', { command: 'hermes extensions doctor' }],
  ['Bash', { command: 'hermes list' }],
  ['Bash', { command: 'hermes --cwd . doctor' }],
  ['Bash', { command: 'npm test' }],
  ['Bash', { command: 'echo x > plans/notes.md' }],
  ['Bash', { command: 'cd plans || true; echo x > a.md' }],
  ['Write', { file_path: 'src/a.ts', content: 'export const a = 2;\n' }],
  ['Write', { file_path: 'package.json', content: '{"name":"p","hermes":{}}\n' }],
  ['Write', { file_path: 'plans/notes.md', content: 'edit .hermes/config.yaml later\n' }],
];

describe('protected ground, in every runtime', () => {
  for (const [tool, args] of WRITERS) {
    it(`refuses ${tool} ${JSON.stringify(args({ root: '<root>', home: '<home>' }))}`, async () => {
      for (const extensions of [[], [workflowGuard]]) {
        const outcome = await decide(tool, args({ root, home: hermesHome }), extensions);
        expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
        if (!outcome.blocked) return;
        expect(outcome.blockedBy).toBe('hermes');
        expect(outcome.message).toMatch(/protected ground/);
      }
    });
  }

  for (const command of COMMANDS) {
    it(`refuses the shell command ${command}`, async () => {
      for (const extensions of [[], [workflowGuard]]) {
        const outcome = await decide('Bash', { command }, extensions);
        expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
        if (!outcome.blocked) return;
        expect(outcome.blockedBy).toBe('hermes');
      }
    });
  }

  it('refuses the command in any shell tool and argument form (Codex exec_command, an argv)', async () => {
    for (const [tool, args] of [
      ['exec_command', { cmd: ['bash', '-lc', 'hermes extensions trust --yes'] }],
      ['shell', { command: ['hermes', 'extensions', 'trust'] }],
      ['run_terminal_cmd', { command: 'hermes hook install claude-code --project' }],
      ['Bash', { command: 'hermes \\\n  extensions trust' }],
      ['Bash', { command: 'true', env: { X: 'hermes extensions trust' } }],
    ] as const) {
      const outcome = await decide(tool, args as Record<string, unknown>);
      expect(outcome.blocked, `${tool} ${JSON.stringify(args)}`).toBe(true);
    }
  });

  for (const [tool, args] of ALLOWED) {
    it(`lets ${tool} ${JSON.stringify(args)} through`, async () => {
      const outcome = await decide(tool, args);
      expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
    });
  }

  it('says what the place decides and what to do instead', async () => {
    const outcome = await decide('Write', { file_path: '.hermes/config.yaml', content: '' });
    if (!outcome.blocked) expect.fail('expected a refusal');
    expect(outcome.message).toContain('Write would write .hermes/config.yaml');
    expect(outcome.message).toContain("the project's hermes config and extensions");
    expect(outcome.message).toContain('ask the user to make it in their own terminal');
    const command = await decide('Bash', { command: 'hermes extensions trust --yes' });
    if (!command.blocked) expect.fail('expected a refusal');
    expect(command.message).toContain('`hermes extensions trust`');
  });

  it('decides before any handler: no extension sees the refused call', async () => {
    const seen: string[] = [];
    const spy = defineExtension({
      name: 'spy',
      setup(hermes) {
        hermes.on('intercept_tool_call', (event) => {
          seen.push(event.toolName);
          return undefined;
        });
      },
    });
    expect((await decide('Write', { file_path: '.hermes/config.yaml' }, [spy])).blocked).toBe(true);
    expect((await decide('Write', { file_path: 'src/a.ts' }, [spy])).blocked).toBe(false);
    expect(seen).toEqual(['Write']);
    expect(existsSync(join(root, '.hermes/config.yaml'))).toBe(true);
  });

  it('judges each call by its own tool name, whatever came before it and however many names a host makes up', async () => {
    // A tool's kind is remembered by its name: a reader's must not carry over to the next call,
    // and a host that sends a new name every call must not be waved through once the memory is full.
    const runtime = await createRuntime({ extensions: [], cwd: root, logger: memoryLogger() });
    const target = { file_path: '.hermes/config.yaml', content: 'extensions: {}\n' };
    const blocked = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const decided: Array<[string, boolean]> = [];
      const names = ['Read', 'Write', 'read', 'write', 'Read', 'mcp__fs__write_file', 'READ'];
      for (let i = 0; i < 1100; i++) names.push(`made_up_writer_${i}`, 'Read');
      for (const toolName of names) {
        decided.push([
          toolName,
          (await turn.interceptToolCall({ toolName, toolArgs: target })).blocked,
        ]);
      }
      return decided;
    });
    const wrong = blocked.filter(([name, refused]) => refused !== !/^read$/i.test(name));
    expect(wrong).toEqual([]);
  });
});

describe("protected ground: the hook daemon's folder", () => {
  // A socket there answers every hook of the user: an agent that put its own server in place of
  // the daemon would be told "allow" for each of its calls (docs/command-hooks.md, The hook daemon).
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const calls = (folder: string): Array<[string, Record<string, unknown>]> => [
    ['Write', { file_path: join(folder, 'k.sock'), content: '' }],
    ['Bash', { command: `rm -rf ${folder}` }],
    ['Bash', { command: `node -e "require('net').createServer().listen('${folder}/k.sock')"` }],
    ['Bash', { command: "python3 -c \"open('x','w')\" > $HERMES_DAEMON_DIR/k.sock" }],
  ];

  it('refuses writes to the folder HERMES_DAEMON_DIR names, with or without a plan', async () => {
    const folder = join(tree({}), 'daemons');
    process.env.HERMES_DAEMON_DIR = folder;
    for (const [tool, args] of calls(folder)) {
      for (const extensions of [[], [workflowGuard]]) {
        const outcome = await decide(tool, args, extensions);
        expect(outcome.blocked, `${tool} ${JSON.stringify(args)}`).toBe(true);
        if (outcome.blocked) expect(outcome.blockedBy).toBe('hermes');
      }
    }
  });

  it('refuses writes to the default folder under the temporary folder', async () => {
    delete process.env.HERMES_DAEMON_DIR;
    const folder = join(tmpdir(), `hermes-daemon-${uid}`);
    for (const [tool, args] of calls(folder).slice(0, 3)) {
      const outcome = await decide(tool, args);
      expect(outcome.blocked, `${tool} ${JSON.stringify(args)}`).toBe(true);
    }
  });
});

describe("protected ground: the user's folders wherever the environment says they are", () => {
  // Claude Code hands a project's settings `env` to the hook: a HOME or XDG_CONFIG_HOME of the
  // project's choosing must not move the user's own hook settings off protected ground.
  it('protects the home the system records and the default config folder as well', async () => {
    const recorded = userInfo().homedir;
    process.env.XDG_CONFIG_HOME = join(user, 'elsewhere');
    process.env.CODEX_HOME = join(user, 'codex-elsewhere');
    expect(process.env.HOME).not.toBe(recorded);
    for (const file of [
      join(recorded, '.claude/settings.json'),
      join(recorded, '.config/opencode/plugins/x.js'),
      join(recorded, '.codex/hooks.json'),
      join(user, 'elsewhere/opencode/plugins/x.js'),
    ]) {
      const outcome = await decide('Write', { file_path: file, content: '{}' });
      expect(outcome.blocked, file).toBe(true);
    }
  });

  // Claude Code keeps its settings (hooks included) and its user MCP servers in $CLAUDE_CONFIG_DIR
  // when that is set, in place of ~/.claude and ~/.claude.json.
  it("protects Claude Code's config folder where CLAUDE_CONFIG_DIR puts it, and the default", async () => {
    const config = join(user, 'claude-work');
    process.env.CLAUDE_CONFIG_DIR = config;
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['Write', { file_path: join(config, 'settings.json'), content: '{}' }],
        ['Write', { file_path: join(config, 'settings.local.json'), content: '{}' }],
        ['Write', { file_path: join(config, '.claude.json'), content: '{}' }],
        ['Bash', { command: `echo '{}' > ${join(config, 'settings.json')}` }],
        ['Bash', { command: `python3 -c "open('x','w')" > "$CLAUDE_CONFIG_DIR/x"` }],
        ['Write', { file_path: join(user, '.claude/settings.json'), content: '{}' }],
      ];
      for (const [tool, args] of calls) {
        const outcome = await decide(tool, args);
        expect(outcome.blocked, `${tool} ${JSON.stringify(args)}`).toBe(true);
      }
      const elsewhere = await decide('Write', { file_path: join(config, 'notes.md'), content: '' });
      expect(elsewhere.blocked).toBe(false);
    } finally {
      delete process.env.CLAUDE_CONFIG_DIR;
    }
  });
});

describe("protected ground: the login shells' start-up files", () => {
  // Codex runs each hook with `$SHELL -lc` (docs/command-hooks.md): a login shell reads these
  // before the hook's command, so an `exit 0` written into one would end every hook with no answer,
  // which Codex takes for "allow".
  it('refuses a write to each of them, naming the file, and lets a read through', async () => {
    const zdotdir = join(user, 'zsh-config');
    process.env.ZDOTDIR = zdotdir;
    delete process.env.XDG_CONFIG_HOME;
    try {
      const files = [
        join(user, '.bash_profile'),
        join(user, '.bash_login'),
        join(user, '.profile'),
        join(user, '.bashrc'),
        join(user, '.zshenv'),
        join(user, '.zprofile'),
        join(user, '.config/fish/config.fish'),
        join(user, '.config/fish/conf.d/x.fish'),
        join(zdotdir, '.zprofile'),
        join(zdotdir, '.zshenv'),
      ];
      for (const file of files) {
        for (const [tool, args] of [
          ['Write', { file_path: file, content: 'exit 0\n' }],
          ['Edit', { file_path: file, old_string: 'a', new_string: 'exit 0' }],
        ] as const) {
          const outcome = await decide(tool, args);
          expect(outcome.blocked, `${tool} ${file}`).toBe(true);
          if (!outcome.blocked) continue;
          expect(outcome.blockedBy).toBe('hermes');
          expect(outcome.message).toContain(file);
          expect(outcome.message).toMatch(/start-up/);
        }
        const read = await decide('Read', { file_path: file });
        expect(read.blocked, `Read ${file}`).toBe(false);
      }
      const tilde = await decide('Write', { file_path: '~/.profile', content: 'exit 0\n' });
      expect(tilde.blocked).toBe(true);
      const ordinary = await decide('Write', { file_path: join(user, 'notes.md'), content: '' });
      expect(ordinary.blocked).toBe(false);
    } finally {
      delete process.env.ZDOTDIR;
    }
  });
});
