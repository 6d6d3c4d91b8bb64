import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { distModule, runNodeScript } from '../support/node-script.js';
import { bin, built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * The trusted projects ($HERMES_HOME/trusted-projects.json) changed by several processes at once:
 * each change is a read of the file, a change and a write, so without one writer at a time a
 * write made from an older read drops the trust given in between, and brings back one revoked.
 */
const INDEX = distModule('index.js');

const trustedRoots = (home: string): string[] =>
  Object.keys(
    JSON.parse(readFileSync(join(home, 'trusted-projects.json'), 'utf8')).projects,
  ).sort();

/** `count` projects, each with a project config of its own (something to trust). */
function projects(base: string, who: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const files = {
      [`${who}-${i}/.git/HEAD`]: '',
      [`${who}-${i}/.hermes/config.yaml`]: `extensions:\n  disabled: [x${i}]\n`,
    };
    write(base, files);
    return join(base, `${who}-${i}`);
  });
}

/** A process that, once `go` exists, trusts (or revokes) each of `roots` in turn. */
function changer(home: string, roots: string[], how: 'trust' | 'revoke', go: string) {
  return runNodeScript(`
    import { existsSync } from 'node:fs';
    import { trustProject, revokeProjectTrust } from ${INDEX};
    process.stdout.write('ready\\n');
    while (!existsSync(${JSON.stringify(go)})) await new Promise((tick) => setTimeout(tick, 5));
    for (const root of ${JSON.stringify(roots)}) {
      ${how === 'trust' ? 'await trustProject(root, ' : 'await revokeProjectTrust(root, '}${JSON.stringify(home)});
    }
  `);
}

describe.runIf(built)('trust and untrust by several processes at once', () => {
  it('keeps every trust given, and every revoke made stays made', async () => {
    const home = tree();
    const base = tree();
    const [a, b] = [projects(base, 'a', 80), projects(base, 'b', 80)];
    const revoked = projects(base, 'old', 80);
    const setup = changer(home, revoked, 'trust', join(base, 'go-setup'));
    write(base, { 'go-setup': '' });
    expect(await setup.exited, setup.stderr()).toBe(0);
    expect(trustedRoots(home)).toHaveLength(80);
    const go = join(base, 'go');
    const writers = [
      changer(home, a, 'trust', go),
      changer(home, b, 'trust', go),
      changer(home, revoked, 'revoke', go),
    ];
    await Promise.all(writers.map((writer) => writer.printed('ready')));
    write(base, { go: '' });
    for (const writer of writers) expect(await writer.exited, writer.stderr()).toBe(0);
    expect(trustedRoots(home)).toEqual([...a, ...b].sort());
  });

  it('a revoke made while a trust is reviewed wins: the trust records nothing', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    expect((await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project)).code).toBe(0);
    write(project, { '.hermes/extensions/local.ts': tsExtension('local', 'console.log(1)') });
    // The change is reviewed on a terminal; before the answer, the trust is revoked elsewhere.
    const review = await onTerminal(home, `extensions trust --cwd "${project}"`, async () => {
      const revoke = await hermes(home, 'extensions', 'trust', '--revoke', '--cwd', project);
      expect(revoke.stdout).toMatch(/revoked/);
    });
    expect(review.stdout).toMatch(/changed by another command .* while this one reviewed it/);
    expect(review.code).toBe(1);
    expect(trustedRoots(home)).toEqual([]);
    const list = await hermes(home, 'extensions', 'list', '--cwd', project);
    expect(list.stdout).toMatch(/local\s+untrusted/);
  });
});

/** The bin on a pseudo-terminal (under `script`): at its y/N question, `meanwhile`, then yes. */
function onTerminal(
  home: string,
  args: string,
  meanwhile: () => Promise<void>,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `"${process.execPath}" "${bin}" ${args}`, '/dev/null'], {
      env: { ...process.env, HERMES_HOME: home, NO_COLOR: '1' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const before = stdout;
      stdout += chunk.toString();
      if (!before.includes('[y/N]') && stdout.includes('[y/N]'))
        meanwhile().then(() => child.stdin.write('y\n'), reject);
    });
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code: code ?? -1, stdout });
    });
  });
}
