import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { treeDigest } from '../sandbox.js';
import { call, decide, project, run, spelledApart } from '../sandbox-attack.js';

/**
 * Attacks that leave something behind for a program run later, outside the sandbox, to obey:
 * links in plans/ for a later write, a repository, editor, agent or shell settings made or changed
 * in plans/ (docs/policy.md, What runs where). Called inside a test
 * file's `describe` (extensions/workflow-guard/sandbox-attacks.test.ts).
 */
export function laterProgramAttacks(): void {
  it('lets no link a sandboxed command plants in plans/ lead a later write to src/', async () => {
    const root = project();
    const before = treeDigest(join(root, 'src'));
    const hermesSandbox = join(process.env.HERMES_HOME as string, 'sandbox');
    const plant = await call(root, {
      command: `${spelledApart(hermesSandbox)} ln -s ../src plans/dir && ln -s ../src/app.ts plans/file && ln -s ../src/new.ts plans/dangling && ln -s "$h" plans/settings && ln -s "$TMPDIR" plans/tmp && echo planted`,
    });
    expect(plant).toMatchObject({ ran: 'sandboxed', stdout: 'planted\n' });
    // What the line runs on: the seccomp filter of our own line (or the runtime's settings).
    const settingsFile = readdirSync(hermesSandbox).find((name) => /\.(?:bpf|json)$/.test(name));
    expect(settingsFile).toBeDefined();
    const writes: Array<[string, Record<string, unknown>]> = [
      ['write', { path: 'plans/dir/x.ts', content: 'x' }],
      ['write', { path: 'plans/file', content: 'x' }],
      ['write', { path: 'plans/dangling', content: 'x' }],
      ['write', { path: `plans/settings/${settingsFile}`, content: '{}' }],
      ['edit', { file_path: 'plans/file', old_string: 'app', new_string: 'x' }],
      ['bash', { command: 'echo x > plans/file' }],
      ['bash', { command: 'echo x >> plans/dangling' }],
      ['bash', { command: 'echo x | tee plans/dir/x.ts' }],
      ['bash', { command: 'mkdir -p plans/dir/pwned' }],
      ['bash', { command: `echo '{}' > plans/settings/${settingsFile}` }],
    ];
    for (const [tool, args] of writes) {
      const outcome = await decide(root, args, {}, [], tool);
      expect(outcome, `${tool} ${JSON.stringify(args)}`).toMatchObject({
        blocked: true,
        // A write through the link into $HERMES_HOME is on protected ground, which the
        // framework refuses before the guard sees it (docs/trust.md, Protected ground).
        blockedBy: JSON.stringify(args).includes('plans/settings') ? 'hermes' : 'workflow-guard',
      });
    }
    // Through the sandbox, the links lead to read-only files.
    const through = await call(root, {
      command:
        's=plans/sett; echo x > plans/file; echo x > plans/dangling; touch plans/dir/x.ts; echo "{}" > "$s"ings/x.json; true',
    });
    expect(through.ran).toBe('sandboxed');
    expect(treeDigest(join(root, 'src'))).toBe(before);
    // Only what the lines are made of (and the daemon's filters, with a domain allowed).
    expect(
      readdirSync(hermesSandbox).every((name) =>
        /^(?:srt-|unix-block-|network-|mount-points\.lock$)/.test(name),
      ),
    ).toBe(true);
  });

  it('keeps a sandboxed command from configuring a later git: a repository it makes in plans/, or the project’s own .git', async () => {
    const root = project();
    const before = treeDigest(join(root, 'src'));
    // A repository with an fsmonitor, and a work tree whose `.git` file points at it.
    const make = await call(root, {
      command: `git init -q --bare plans/gd && git --git-dir=plans/gd config core.fsmonitor "touch ${root}/src/pwned" && mkdir plans/r && echo "gitdir: ../gd" > plans/r/.git && git init -q plans/r2 && git -C plans/r2 config core.fsmonitor "touch ${root}/src/pwned2"; git config core.fsmonitor "touch ${root}/src/pwned3"; printf '#!/bin/sh\\ntouch ${root}/src/pwned4\\n' > .git/hooks/post-checkout; echo made`,
    });
    expect(make).toMatchObject({ ran: 'sandboxed' });
    expect(make.ran !== 'blocked' && make.stdout).toContain('made');
    // The repositories are there, fsmonitor and all: what holds is that no git runs them unsandboxed.
    expect(run('git --git-dir=plans/gd config core.fsmonitor', root).stdout).toContain('touch');
    expect(run('git --git-dir=plans/r2/.git config core.fsmonitor', root).stdout).toContain(
      'touch',
    );
    for (const args of [
      { command: 'cd plans/r && git status' },
      { command: 'git status', workdir: 'plans/r' },
      { command: 'cd plans/r2 && git status' },
      { command: 'cd plans/r2 && git log' },
    ]) {
      const ran = await call(root, args);
      // Refused, or run where git's config cannot write.
      expect(ran.ran, JSON.stringify(args)).not.toBe('as-is');
    }
    // The project's own repository was not writable: a proven-read git there runs as it is.
    expect(make.ran !== 'blocked' && make.stderr).toMatch(
      /\.git\/config.*Read-only|could not lock config file/,
    );
    expect(make.ran !== 'blocked' && make.stderr).toMatch(/post-checkout: Read-only file system/);
    const status = await call(root, { command: 'git status' });
    expect(status).toMatchObject({ ran: 'as-is', code: 0 });
    for (const name of ['pwned', 'pwned2', 'pwned3', 'pwned4']) {
      expect(existsSync(join(root, 'src', name)), name).toBe(false);
    }
    expect(treeDigest(join(root, 'src'))).toBe(before);
  });

  it('keeps what configures a later program read-only where it is in plans/: a repository’s hooks and config, editor and shell settings', async () => {
    const root = project({
      'plans/.vscode/settings.json': '{}\n',
      'plans/notes/.bashrc': '# rc\n',
      'plans/notes/.mcp.json': '{}\n',
    });
    run('git init -q plans/repo', root);
    const before = treeDigest(join(root, 'plans'));
    const ran = await call(root, {
      command:
        // `.mcp.json` named as it runs: by its name, the protected-ground rule refuses the line first.
        'm=mcp; for f in plans/repo/.git/hooks/post-checkout plans/repo/.git/config plans/.vscode/settings.json plans/notes/.bashrc plans/notes/.$m.json plans/.vscode/tasks.json; do echo pwned >> "$f" || echo "refused $f"; done; echo x > plans/fine.md; true',
    });
    expect(ran).toMatchObject({ ran: 'sandboxed' });
    expect(ran.ran !== 'blocked' && ran.stdout.match(/^refused /gm)?.length).toBe(6);
    expect(readFileSync(join(root, 'plans/fine.md'), 'utf8')).toBe('x\n');
    rmSync(join(root, 'plans/fine.md'));
    expect(treeDigest(join(root, 'plans'))).toBe(before);
  });

  it('keeps a sandboxed command from making what configures a later program at the top of plans/: a repository, editor, agent and shell settings', async () => {
    const root = project({ 'handoff/.keep': '' });
    const before = treeDigest(join(root, 'plans'));
    // Each made where it does not exist yet: a program run later in plans/, outside the
    // sandbox (git, an editor that opens it, an agent started there, a shell), would obey it.
    const attempts = [
      `mkdir -p plans/.git/hooks plans/.git/objects plans/.git/refs && echo 'ref: refs/heads/main' > plans/.git/HEAD && printf '[core]\\n\\tfsmonitor = touch ${root}/src/pwned\\n' > plans/.git/config`,
      'echo "gitdir: ../src" > plans/.git',
      'mkdir -p plans/.vscode && echo "{}" > plans/.vscode/tasks.json',
      'mkdir -p plans/.idea && echo x > plans/.idea/workspace.xml',
      's=settings; mkdir -p plans/.claude && echo "{}" > plans/.claude/$s.json',
      'mkdir -p plans/.claude/commands',
      'echo "touch pwned" > plans/.bashrc',
      // Named as it runs: by its name, the protected-ground rule refuses the line first.
      'm=mcp; echo "{}" > plans/.$m.json',
      'echo "[alias]" > handoff/.gitconfig',
      'echo x > handoff/.profile',
    ];
    const ran = await call(root, {
      command: attemptsScript([...attempts, 'echo x > plans/fine.md']),
    });
    expect(ran, JSON.stringify(ran.outcome)).toMatchObject({ ran: 'sandboxed' });
    expect(ran.ran !== 'blocked' && ran.stdout.match(/^refused$/gm)?.length).toBe(attempts.length);
    expect(readFileSync(join(root, 'plans/fine.md'), 'utf8')).toBe('x\n');
    rmSync(join(root, 'plans/fine.md'));
    // Nothing left behind on the disk: what held the names is gone with the command.
    expect(treeDigest(join(root, 'plans'))).toBe(before);
    expect(readdirSync(join(root, 'handoff'))).toEqual(['.keep']);
    expect(existsSync(join(root, 'src/pwned'))).toBe(false);
  });

  it('keeps a repository and agent settings already in plans/ from being configured, moved aside or made anew', async () => {
    const root = project({ 'plans/.claude/notes.md': 'n\n' });
    run('git init -q plans', root);
    const before = treeDigest(join(root, 'plans'));
    const attempts = [
      `printf '[core]\\n\\tfsmonitor = touch ${root}/src/pwned\\n' >> plans/.git/config`,
      'rm -rf plans/.git/hooks',
      'mv plans/.git plans/old-git',
      's=settings; echo "{}" > plans/.claude/$s.local.json',
      's=settings; echo "{}" > plans/.claude/$s.json',
      'mkdir plans/.claude/agents',
      'mv plans/.claude plans/old-claude',
    ];
    const ran = await call(root, {
      command: attemptsScript(attempts),
    });
    expect(ran, JSON.stringify(ran.outcome)).toMatchObject({ ran: 'sandboxed' });
    expect(ran.ran !== 'blocked' && ran.stdout.match(/^refused$/gm)?.length).toBe(attempts.length);
    expect(treeDigest(join(root, 'plans'))).toBe(before);
  });
}

/**
 * Each line run in turn by a script the guard cannot prove (so it runs sandboxed), `refused`
 * printed for each that fails.
 */
function attemptsScript(lines: readonly string[]): string {
  const body = lines.map((line) => `{ ${line}; } 2>/dev/null || echo refused`).join('\n');
  return `bash <<'ATTEMPTS'\n${body}\nATTEMPTS`;
}
