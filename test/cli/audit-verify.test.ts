import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import auditLog from 'hermes-extensions/audit-log';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const TRAIL = '.hermes/audit/audit.jsonl';

/** A project whose trail audit-log wrote, `count` decisions, and a home that names audit-log. */
async function trail(
  count: number,
  config: Record<string, unknown> = {},
  project = tree({ '.git/HEAD': '' }),
) {
  const home = tree({ 'config.yaml': 'extensions:\n  paths: [hermes-extensions/audit-log]\n' });
  const runtime = await createRuntime({
    extensions: [auditLog],
    cwd: project,
    config: { extensions: { 'audit-log': config } },
    logger: memoryLogger(),
  });
  for (let n = 0; n < count; n++) runtime.emit('hook_decision', { session_id: 's', n });
  await runtime.close();
  return { home, project, file: join(project, TRAIL) };
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);

describe.runIf(built)('hermes extensions audit verify', () => {
  it('reports OK with the count for an intact trail, and names the first broken line (exit 1)', async () => {
    const { home, project, file } = await trail(6);
    const ok = await hermes(home, 'extensions', 'audit', 'verify', '--cwd', project);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^OK: 6 line\(s\) chained in 1 file\(s\); not signed\n?$/);

    const all = lines(file);
    all[3] = (all[3] as string).replace('"n":3', '"n":30');
    writeFileSync(file, `${all.join('\n')}\n`);
    const edited = await hermes(home, 'extensions', 'audit', 'verify', '--cwd', project);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(
      /^BROKEN: line 4 of .*audit\.jsonl was edited: .*\(3 line\(s\) before it verified\)\n?$/,
    );
  });

  it('checks a file named with --file and its rotated files, as JSON', async () => {
    const { home, file } = await trail(20, { max_bytes: 500, keep: 50 });
    const moved = join(tree(), 'kept.jsonl');
    // A copy kept elsewhere, rotated files and all; then one of them goes missing.
    const suffixes = [
      '',
      ...readdirSync(dirname(file)).flatMap((name) => /\.jsonl(\.\d+)$/.exec(name)?.[1] ?? []),
    ];
    expect(suffixes.length).toBeGreaterThan(3);
    for (const suffix of suffixes) renameSync(`${file}${suffix}`, `${moved}${suffix}`);
    const intact = await hermes(home, 'extensions', 'audit', 'verify', '--file', moved, '--json');
    expect(JSON.parse(intact.stdout)).toMatchObject({ status: 'ok', lines: 20 });
    unlinkSync(`${moved}.2`);
    const answer = await hermes(home, 'extensions', 'audit', 'verify', '--file', moved, '--json');
    expect(answer.code).toBe(1);
    expect(JSON.parse(answer.stdout)).toMatchObject({
      status: 'broken',
      at: { file: `${moved}.1`, line: 1, what: expect.stringMatching(/^begins with .* missing/) },
    });
  });

  it('verifies signatures with --public-key, and names a line the key did not sign', async () => {
    const project = tree({ '.git/HEAD': '' });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    // On protected ground: the project's .hermes folder, which no tool call of the agent may write.
    write(project, {
      '.hermes/keys/audit.pem': privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    });
    const pub = join(
      tree({ 'audit.pub': publicKey.export({ type: 'spki', format: 'pem' }) as string }),
      'audit.pub',
    );
    const { home, file } = await trail(
      3,
      { signing_key: join(project, '.hermes/keys/audit.pem') },
      project,
    );
    const verify = (...more: string[]) =>
      hermes(home, 'extensions', 'audit', 'verify', '--cwd', project, ...more);
    const signed = await verify('--public-key', pub);
    expect(signed).toMatchObject({ code: 0, stderr: '' });
    expect(signed.stdout).toMatch(/^OK: 3 line\(s\) .*; every line signed by the key\n?$/);
    expect((await verify()).stdout).toMatch(/signed, signatures not checked: give the public key/);

    // The last line, which no later line's hash covers: only its signature tells it was edited.
    const all = lines(file);
    all[2] = (all[2] as string).replace('"n":2', '"n":5');
    writeFileSync(file, `${all.join('\n')}\n`);
    expect((await verify()).code).toBe(0);
    const forged = await verify('--public-key', pub);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/^BROKEN: line 3 of .*a signature the key does not verify/);
  });

  it('reports a trail written before chaining as unchained (exit 1), not as broken', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      [TRAIL]: '{"at":"2026-01-01T00:00:00.000Z","event":"hook_decision"}\n',
    });
    const answer = await hermes(home, 'extensions', 'audit', 'verify', '--cwd', project);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toMatch(/^UNCHAINED: 1 line\(s\), none chained/);
  });
});
