import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  sandboxCommand,
  sandboxedCommandOf,
  sandboxedShellCallOf,
  sandboxShellCall,
} from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { runShell, sandbox, sandboxMissingTest } from '../support/sandbox.js';

function project() {
  return tree({ 'src/a.ts': 'a\n', 'plans/.keep': '', 'state/.keep': '' });
}

const optionsFor = (root: string) => ({
  root,
  writable: ['plans/'],
  stateDir: join(root, 'state'),
});

/** The settings file a sandboxed line names, parsed. */
function settingsOf(line: string) {
  const file = /--settings '([^']+)'/.exec(line)?.[1];
  if (file === undefined) throw new Error(`no settings file in ${line}`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('hermes-extensions/policy: the sandbox', () => {
  sandboxMissingTest();

  describe.runIf(sandbox.available)('with the sandbox', () => {
    it('reads back exactly the command it wrapped, for any text, and nothing else', () => {
      const root = project();
      const options = optionsFor(root);
      const texts = [
        'ls',
        "echo 'it'\\''s'",
        "a ' -c 'b",
        'line one\nline two',
        "''''",
        '$(rm -rf src)',
        ' leading and trailing ',
        'ünïcödé ✓',
      ];
      for (const text of texts) {
        const made = sandboxCommand(text, options);
        if (made.kind !== 'sandboxed') throw new Error(made.reason);
        expect(sandboxedCommandOf(made.command, options)).toBe(text);
        for (const changed of [
          `${made.command};`,
          ` ${made.command}`,
          `${made.command}\nrm -rf src`,
          made.command.replace(' -c ', '  -c '),
          // Our own line without its seccomp filter (Unix sockets open again).
          made.command.replace(' --seccomp 9', ''),
        ]) {
          expect(sandboxedCommandOf(changed, options), changed).toBeUndefined();
        }
        // Other settings, other line: the same command wrapped with src/ writable is not this one.
        const wider = sandboxCommand(text, { ...options, writable: ['src/'] });
        if (wider.kind !== 'sandboxed') throw new Error(wider.reason);
        expect(sandboxedCommandOf(wider.command, options)).toBeUndefined();
      }
    });

    it('runs the command as bash would, with its exit code and output', () => {
      const root = project();
      const made = sandboxCommand("printf '%s|' \"$0\" it\\'s; exit 3", optionsFor(root));
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      expect(runShell(made.command, root)).toMatchObject({
        code: 3,
        stdout: expect.stringMatching(/bash\|it's\|$/),
      });
    });

    it('keeps a call’s other arguments, and refuses forms it cannot wrap', () => {
      const root = project();
      const options = optionsFor(root);
      const call = sandboxShellCall({ command: 'make', workdir: 'src', timeout: 5 }, options);
      expect(call).toMatchObject({ kind: 'sandboxed', args: { workdir: 'src', timeout: 5 } });
      if (call.kind !== 'sandboxed') return;
      expect(sandboxedShellCallOf(call.args, options)).toBe('make');
      // Where it runs is the host's to say: the sandbox holds from any folder.
      expect(sandboxedShellCallOf({ ...call.args, workdir: '..' }, options)).toBe('make');
      expect(sandboxedShellCallOf({ ...call.args, env: { X: '1' } }, options)).toBeUndefined();
      expect(sandboxedShellCallOf({ ...call.args, cmd: 'rm -rf src' }, options)).toBeUndefined();
      for (const args of [
        { command: ['make', 'all'] },
        { command: 'make', args: ['all'] },
        { command: 'make', env: { PATH: 'plans' } },
        { command: 'make', shell: 'zsh' },
        { command: 'make', cmd: 'make' },
        { command: 'make\0' },
      ]) {
        expect(sandboxShellCall(args, options), JSON.stringify(args)).toMatchObject({
          kind: 'unsupported',
        });
      }
    });

    it('keeps files with other names read-only, and writable paths through links out', () => {
      const root = project();
      linkSync(join(root, 'src/a.ts'), join(root, 'plans/alias.ts'));
      symlinkSync(join(root, 'src'), join(root, 'plans-link'));
      mkdirSync(join(root, 'plans/deep'));
      const made = sandboxCommand('true', {
        ...optionsFor(root),
        writable: ['plans/', 'plans-link/', 'plans-link/new/', 'missing/'],
      });
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      expect(made.leftOut).toEqual([
        'plans-link/ (a symbolic link)',
        'plans-link/new/ (a symbolic link)',
      ]);
      // Our own line: writable what exists of it, the hard link read-only, no network at all.
      const line = made.command;
      expect(line).toContain(` --bind '${join(root, 'plans')}' '${join(root, 'plans')}' `);
      expect(line).not.toContain(join(root, 'missing'));
      expect(line).not.toContain(`'${join(root, 'plans/deep')}'`);
      expect(line).toContain(
        ` --ro-bind '${join(root, 'plans/alias.ts')}' '${join(root, 'plans/alias.ts')}' `,
      );
      expect(line).toContain(' --unshare-net ');
      // The runtime's line, made with a network domain, says the same in its settings.
      const srt = sandboxCommand('true', {
        ...optionsFor(root),
        writable: ['plans/', 'plans-link/', 'plans-link/new/', 'missing/'],
        network: ['example.com'],
      });
      if (srt.kind !== 'sandboxed') throw new Error(srt.reason);
      const settings = settingsOf(srt.command);
      expect(settings.filesystem.allowWrite).toEqual([
        join(root, 'plans'),
        join(root, 'missing'),
        expect.stringMatching(/hermes-sandbox-\d+\/[0-9a-f]{16}$/),
      ]);
      expect(settings.filesystem.denyWrite[0]).toBe(join(root, 'plans/alias.ts'));
      expect(settings.filesystem.denyWrite).not.toContain(join(root, 'plans/deep'));
    });

    it('refuses a symbolic link where a file that configures a later program is read: it could be replaced', () => {
      const root = project();
      mkdirSync(join(root, 'plans/sub'));
      symlinkSync('../../src/a.ts', join(root, 'plans/sub/.bashrc'));
      const made = sandboxCommand(
        'rm plans/sub/.bashrc; echo "touch pwned" > plans/sub/.bashrc',
        optionsFor(root),
      );
      if (made.kind === 'sandboxed') runShell(made.command, root);
      expect(lstatSync(join(root, 'plans/sub/.bashrc')).isSymbolicLink()).toBe(true);
      expect(made).toMatchObject({
        kind: 'unavailable',
        reason: expect.stringContaining(`${join(root, 'plans/sub/.bashrc')} is a symbolic link`),
        fix: expect.stringContaining('remove it'),
      });
    });

    it('leaves out a writable folder with more entries than it walks, rather than hold part of it', () => {
      const root = project();
      mkdirSync(join(root, 'plans/many'));
      for (let i = 0; i <= 20_000; i++) writeFileSync(join(root, 'plans/many', String(i)), '');
      const made = sandboxCommand(
        'mkdir plans/.git; echo x > plans/many/.bashrc',
        optionsFor(root),
      );
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      expect(made.leftOut).toEqual(['plans/ (over 20000 entries to check for hard links)']);
      expect(runShell(made.command, root).code).not.toBe(0);
      expect(existsSync(join(root, 'plans/.git'))).toBe(false);
      expect(existsSync(join(root, 'plans/many/.bashrc'))).toBe(false);
    });

    it('lets the network through to the domains it is given only', () => {
      const root = project();
      const made = sandboxCommand('true', { ...optionsFor(root), network: ['registry.npmjs.org'] });
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      expect(settingsOf(made.command).network).toEqual({
        allowedDomains: ['registry.npmjs.org'],
        deniedDomains: [],
      });
      // Other domains, other settings: a line made without them is not this one.
      expect(sandboxedCommandOf(made.command, optionsFor(root))).toBeUndefined();
    });

    it('refuses to keep its settings where the sandbox may write them', () => {
      const root = project();
      const made = sandboxCommand('true', {
        ...optionsFor(root),
        stateDir: join(root, 'plans/state'),
      });
      expect(made).toMatchObject({
        kind: 'unavailable',
        reason: expect.stringContaining('which the sandbox may write'),
      });
    });

    it('runs nothing when what its line runs on is gone: the seccomp filter removed, bubblewrap not starting', () => {
      const root = project();
      const made = sandboxCommand('touch plans/ran; touch src/ran', optionsFor(root));
      if (made.kind !== 'sandboxed') throw new Error(made.reason);
      const filter = / 9<'([^']+)'/.exec(made.command)?.[1];
      expect(filter).toBeDefined();
      rmSync(filter as string);
      const ran = runShell(made.command, root);
      expect(ran.code).not.toBe(0);
      // A bubblewrap that cannot read its filter does not start the command either.
      const closed = runShell(made.command.replace(/ 9<'[^']+'/, ' 9<&-'), root);
      expect(closed.code).not.toBe(0);
      expect(existsSync(join(root, 'plans/ran'))).toBe(false);
      expect(existsSync(join(root, 'src/ran'))).toBe(false);
      // Made again, the filter is back and the command runs, sandboxed.
      const again = sandboxCommand('touch plans/ran; touch src/ran', optionsFor(root));
      if (again.kind !== 'sandboxed') throw new Error(again.reason);
      expect(again.command).toBe(made.command);
      runShell(again.command, root);
      expect(existsSync(join(root, 'plans/ran'))).toBe(true);
      expect(existsSync(join(root, 'src/ran'))).toBe(false);
    });
  });
});
