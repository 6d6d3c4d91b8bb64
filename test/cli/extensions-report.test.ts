import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { bin, built, runProcess } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/** A hook_decision line as extensions/audit-log writes it, with one shadowed decision. */
const decision = (at: string, extension: string, action: string, tool: string, message?: string) =>
  JSON.stringify({
    at,
    event: 'hook_decision',
    hook: 'intercept_tool_call',
    tool_name: tool,
    blocked: false,
    would_block: action === 'block',
    shadow: [{ extension, action, ...(message === undefined ? {} : { message }) }],
  });
const plain = (at: string) =>
  JSON.stringify({ at, event: 'hook_decision', hook: 'intercept_tool_call', blocked: true });

describe.runIf(built)('hermes extensions report', () => {
  it('says there is no audit log, where it looked and how to enable audit-log (exit 1)', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const answer = await hermes(home, 'extensions', 'report', '--cwd', project);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain(join(project, '.hermes/audit/audit.jsonl'));
    expect(answer.stderr).toMatch(/hermes-extensions\/audit-log.*mode: shadow/s);
  });

  it("reads the audit-log extension's path from config, rotated files first, grouped per extension", async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  audit-log:\n    path: logs/trail.jsonl\n',
    });
    const project = tree({
      '.git/HEAD': '',
      'logs/trail.jsonl.2': `${decision('2026-11-01T10:00:00.000Z', 'new-guard', 'block', 'write', 'needs a plan')}\n`,
      'logs/trail.jsonl.1': `${plain('2026-11-02T10:00:00.000Z')}\nnot json\n${decision('2026-11-02T11:00:00.000Z', 'new-guard', 'ask', 'bash', 'sure?')}\n`,
      'logs/trail.jsonl': [
        decision('2026-11-03T10:00:00.000Z', 'new-guard', 'block', 'write', 'needs a plan'),
        decision('2026-11-03T11:00:00.000Z', 'new-guard', 'block', 'edit', 'frozen'),
        decision('2026-11-03T12:00:00.000Z', 'redactor', 'rewrite', 'write'),
      ].join('\n'),
    });
    const answer = await hermes(home, 'extensions', 'report', '--cwd', project, '--json');
    expect(answer.stderr).toBe('');
    const report = JSON.parse(answer.stdout);
    expect(report.files).toEqual(
      ['logs/trail.jsonl.2', 'logs/trail.jsonl.1', 'logs/trail.jsonl'].map((f) => join(project, f)),
    );
    expect(report).toMatchObject({ decisions: 6, unreadable_lines: 1 });
    expect(report.extensions).toEqual([
      {
        extension: 'new-guard',
        would_block: 3,
        would_ask: 1,
        would_change: 0,
        tools: [
          { name: 'write', count: 2 },
          { name: 'bash', count: 1 },
          { name: 'edit', count: 1 },
        ],
        reasons: [
          { action: 'block', message: 'needs a plan', count: 2 },
          { action: 'ask', message: 'sure?', count: 1 },
          { action: 'block', message: 'frozen', count: 1 },
        ],
        first: '2026-11-01T10:00:00.000Z',
        last: '2026-11-03T11:00:00.000Z',
      },
      {
        extension: 'redactor',
        would_block: 0,
        would_ask: 0,
        would_change: 1,
        tools: [{ name: 'write', count: 1 }],
        reasons: [],
        first: '2026-11-03T12:00:00.000Z',
        last: '2026-11-03T12:00:00.000Z',
      },
    ]);

    const since = await hermes(
      home,
      'extensions',
      'report',
      '--cwd',
      project,
      '--since',
      '2026-11-03T10:30:00Z',
    );
    expect(since.code).toBe(0);
    expect(since.stdout).toContain('new-guard: would have blocked 1, asked 0');
    expect(since.stdout).toContain('1× block: frozen');
    expect(since.stdout).toContain('redactor: would have blocked 0, asked 0, changed 1');
    expect(since.stdout).not.toContain('needs a plan');
  });

  it('writes control characters out, takes --file, and refuses a --since that is no date', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      'elsewhere.jsonl': decision('2026-11-01T10:00:00Z', 'g', 'block', 'write', 'a\u001b[2Jb'),
    });
    const answer = await hermes(
      home,
      'extensions',
      'report',
      '--cwd',
      project,
      '--file',
      join(project, 'elsewhere.jsonl'),
    );
    expect(answer.stdout).toContain('1× block: a\\x1b[2Jb');
    const bad = await hermes(home, 'extensions', 'report', '--cwd', project, '--since', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be an ISO date.*"soon"/);
  });

  it('writes out the escape sequences of every field of a committed line: extension, action, tool, time', async () => {
    // OSC 52 asks the terminal to put text on the clipboard; OSC 0 retitles the window.
    const clip = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007';
    const line = JSON.stringify({
      at: `2026-11-01T10:00:00Z${clip}`,
      event: 'hook_decision',
      hook: 'intercept_tool_call',
      tool_name: `write${clip}`,
      shadow: [
        { extension: `g\u001b]0;owned\u0007`, action: `rewrite${clip}`, message: `m${clip}` },
      ],
    });
    const home = tree();
    const project = tree({ '.git/HEAD': '', '.hermes/audit/audit.jsonl': `${line}\n` });
    const answer = await hermes(home, 'extensions', 'report', '--cwd', project);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('rewrite\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07');
    expect(answer.stdout).not.toContain('\u001b');
    expect(answer.stdout).not.toContain('\u0007');
  });

  /** The bin, killed if it does not end: a report that waits on a FIFO would never end. */
  const report = (home: string, ...args: string[]) =>
    runProcess(process.execPath, [bin, 'extensions', 'report', ...args], {
      env: { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '' },
      timeout: 30_000,
    });

  it('refuses a FIFO, given as --file or found at the log path, naming it, instead of waiting on it', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    mkdirSync(join(project, '.hermes/audit'), { recursive: true });
    const found = join(project, '.hermes/audit/audit.jsonl');
    const named = join(project, 'named.jsonl');
    execFileSync('mkfifo', [found, named]);
    for (const args of [
      ['--cwd', project],
      ['--cwd', project, '--file', named],
    ]) {
      const answer = await report(home, ...args);
      expect(answer.code).toBe(1);
      expect(answer.stderr).toContain(args.length === 2 ? found : named);
      expect(answer.stderr).toMatch(/not a regular file/);
    }
  });

  it('refuses a symbolic link a clone commits at the log path (to a device, a FIFO or a file), naming it', async () => {
    const home = tree();
    const outside = tree({
      'trail.jsonl': decision('2026-11-01T10:00:00Z', 'g', 'block', 'w', 'x'),
    });
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    for (const target of ['/dev/zero', join(outside, 'pipe'), join(outside, 'trail.jsonl')]) {
      const project = tree({ '.git/HEAD': '' });
      mkdirSync(join(project, '.hermes/audit'), { recursive: true });
      const found = join(project, '.hermes/audit/audit.jsonl');
      symlinkSync(target, found);
      const answer = await report(home, '--cwd', project);
      expect(answer.code).toBe(1);
      expect(answer.stderr).toContain(found);
      expect(answer.stderr).toMatch(/symbolic link/);
    }
    // A link the user names with --file is theirs to follow, to a regular file only.
    const answer = await report(home, '--file', join(outside, 'trail.jsonl'));
    expect(answer.code).toBe(0);
  });
});
