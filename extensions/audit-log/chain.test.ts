import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, loadRuntime, verifyAuditChain } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import { root } from '../../test/support/run-bin.js';
import auditLog from './index.js';

const TRAIL = '.hermes/audit/audit.jsonl';

/** `count` decisions written by audit-log with `config`, the runtime closed (every line on disk). */
async function written(
  project: string,
  count: number,
  config: Record<string, unknown> = {},
  first = 0,
) {
  const logger = memoryLogger();
  const runtime = await createRuntime({
    extensions: [auditLog],
    cwd: project,
    config: { extensions: { 'audit-log': config } },
    logger,
  });
  for (let seq = first; seq < first + count; seq++)
    runtime.emit('hook_decision', { session_id: 's', n: seq });
  await runtime.close();
  return logger;
}

/** The trail's files, oldest first, as `hermes extensions audit verify` reads them. */
function files(project: string, path = TRAIL) {
  const file = join(project, path);
  const rotated = readdirSync(join(file, '..'))
    .filter((name) => /\.jsonl\.\d+$/.test(name))
    .map((name) => Number(name.split('.').pop()))
    .sort((a, b) => b - a)
    .map((i) => `${file}.${i}`);
  return [...rotated, ...(existsSync(file) ? [file] : [])].map((path) => ({
    path,
    bytes: readFileSync(path),
  }));
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);
const rewrite = (file: string, all: string[]) => writeFileSync(file, `${all.join('\n')}\n`);

function keyPair(project: string): { privatePath: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // On protected ground: the project's .hermes folder, which no tool call of the agent may write.
  const privatePath = join(project, '.hermes/keys/audit.pem');
  write(project, {
    '.hermes/keys/audit.pem': privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  });
  return { privatePath, publicKey };
}

describe('audit-log as a hash chain', () => {
  it('chains every line to the one before it, from a first line that names the chain', async () => {
    const project = tree();
    await written(project, 5);
    const all = lines(join(project, TRAIL)).map((line) => JSON.parse(line));
    expect(all.map((line) => line.chain_seq)).toEqual([0, 1, 2, 3, 4]);
    expect(all[0]).toMatchObject({ chain_id: expect.any(String), chain_prev: null });
    expect(all[1].chain_id).toBeUndefined();
    expect(verifyAuditChain(files(project))).toEqual({
      status: 'ok',
      lines: 5,
      unchained: 0,
      from: 0,
      signatures: 'none',
    });
    // A second runtime goes on from the last line on disk.
    await written(project, 2, {}, 5);
    expect(verifyAuditChain(files(project))).toMatchObject({ status: 'ok', lines: 7 });
  });

  it('names an edited line', async () => {
    const project = tree();
    await written(project, 5);
    const file = join(project, TRAIL);
    const all = lines(file);
    all[2] = (all[2] as string).replace('"n":2', '"n":9');
    rewrite(file, all);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 3, what: expect.stringMatching(/^was edited/) },
    });
  });

  it('names where a deleted line is missing', async () => {
    const project = tree();
    await written(project, 5);
    const file = join(project, TRAIL);
    const all = lines(file);
    all.splice(2, 1);
    rewrite(file, all);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 3, what: expect.stringMatching(/chain_seq 2 to 2 are missing/) },
    });
  });

  it('names two swapped lines as out of order', async () => {
    const project = tree();
    await written(project, 5);
    const file = join(project, TRAIL);
    const all = lines(file);
    [all[1], all[2]] = [all[2] as string, all[1] as string];
    rewrite(file, all);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 2, what: expect.stringMatching(/out of order: chain_seq 2 comes before/) },
    });
  });

  it('names a line copied in again', async () => {
    const project = tree();
    await written(project, 4);
    const file = join(project, TRAIL);
    const all = lines(file);
    all.splice(2, 0, all[1] as string);
    rewrite(file, all);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 3, what: 'repeats chain_seq 1 (line 2 of audit.jsonl): a line copied' },
    });
  });

  it('names a last line cut short, and the next writer leaves it as evidence', async () => {
    const project = tree();
    await written(project, 3);
    const file = join(project, TRAIL);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, -20));
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 3, what: expect.stringMatching(/cut short/) },
    });
    // Written after, the next line is not glued to the cut one, which stays broken.
    await written(project, 1, {}, 3);
    expect(lines(file)).toHaveLength(4);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'broken',
      at: { file, line: 3, what: expect.stringMatching(/not a JSON object/) },
    });
  });

  it('keeps the chain across rotated files, and names a rotated file deleted', async () => {
    const project = tree();
    await written(project, 30, { max_bytes: 600, keep: 20 });
    const all = files(project);
    expect(all.length).toBeGreaterThan(3);
    expect(verifyAuditChain(all)).toMatchObject({ status: 'ok', lines: 30, from: 0 });
    const newest = JSON.parse(lines(join(project, TRAIL))[0] as string);
    expect(newest).toMatchObject({ chain_previous_file: 'audit.jsonl.1', chain_kept_from: 0 });
    // One in the middle.
    const middle = all[1]?.path as string;
    const after = all[2]?.path as string;
    unlinkSync(middle);
    const rest = all.filter((f) => f.path !== middle);
    expect(verifyAuditChain(rest)).toMatchObject({
      status: 'broken',
      at: { file: after, line: 1, what: expect.stringMatching(/missing.*rotated file deleted/) },
    });
    // The oldest.
    const oldest = all.slice(1);
    expect(verifyAuditChain(oldest)).toMatchObject({
      status: 'broken',
      at: {
        file: all[1]?.path,
        line: 1,
        what: expect.stringMatching(
          /^begins with chain_seq \d+: .* missing.*kept the chain from chain_seq 0/,
        ),
      },
    });
  });

  it('tells files rotation dropped from files deleted by hand', async () => {
    const project = tree();
    await written(project, 30, { max_bytes: 600, keep: 2 });
    const all = files(project);
    expect(all).toHaveLength(3);
    const verdict = verifyAuditChain(all);
    expect(verdict).toMatchObject({ status: 'ok' });
    expect(verdict.status === 'ok' && verdict.from).toBeGreaterThan(0);
    expect(verifyAuditChain(all.slice(1))).toMatchObject({
      status: 'broken',
      at: { line: 1, what: expect.stringMatching(/^begins with chain_seq/) },
    });
  });

  it('signs every line with the key the config names; a bad or missing signature is named', async () => {
    const project = tree();
    const { privatePath, publicKey } = keyPair(project);
    await written(project, 4, { signing_key: privatePath });
    const file = join(project, TRAIL);
    expect(verifyAuditChain(files(project), publicKey)).toMatchObject({
      status: 'ok',
      lines: 4,
      signatures: 'verified',
    });
    expect(verifyAuditChain(files(project))).toMatchObject({ signatures: 'unchecked' });
    // The last line, which no later hash covers, edited: only its signature tells.
    const all = lines(file);
    all[3] = (all[3] as string).replace('"n":3', '"n":7');
    rewrite(file, all);
    expect(verifyAuditChain(files(project))).toMatchObject({ status: 'ok' });
    expect(verifyAuditChain(files(project), publicKey)).toMatchObject({
      status: 'broken',
      at: { file, line: 4, what: expect.stringMatching(/signature the key does not verify/) },
    });
    // Another key.
    const other = createPublicKey(generateKeyPairSync('ed25519').privateKey);
    expect(verifyAuditChain(files(project), other)).toMatchObject({
      status: 'broken',
      at: { line: 1, what: expect.stringMatching(/names the signing key/) },
    });
  });

  it("takes the key from the user's config, never from a project's (AUDIT_KEY_IN_PROJECT)", async () => {
    const project = tree({ '.git/HEAD': '' });
    const { privatePath, publicKey } = keyPair(project);
    const paths = `  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`;
    const section = `  audit-log:\n    signing_key: ${JSON.stringify(privatePath)}\n`;
    const run = async (home: string) => {
      const runtime = await loadRuntime({
        home,
        cwd: project,
        trust: true,
        logger: memoryLogger(),
      });
      runtime.emit('hook_decision', { n: 0 });
      await runtime.close();
      return runtime.diagnostics.map((d) => d.code);
    };
    write(project, { '.hermes/config.yaml': `extensions:\n${section}` });
    expect(await run(tree({ 'config.yaml': `extensions:\n${paths}` }))).toContain(
      'AUDIT_KEY_IN_PROJECT',
    );
    expect(verifyAuditChain(files(project), publicKey)).toMatchObject({
      status: 'broken',
      at: { line: 1, what: 'is not signed' },
    });
    unlinkSync(join(project, '.hermes/config.yaml'));
    unlinkSync(join(project, TRAIL));
    expect(await run(tree({ 'config.yaml': `extensions:\n${paths}${section}` }))).not.toContain(
      'AUDIT_KEY_IN_PROJECT',
    );
    expect(verifyAuditChain(files(project), publicKey)).toMatchObject({
      status: 'ok',
      signatures: 'verified',
    });
  });

  it('refuses a key off protected ground, says so, and writes the lines unsigned', async () => {
    const project = tree();
    const outside = tree();
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const key = join(outside, 'audit.pem');
    writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    const logger = await written(project, 2, { signing_key: key });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      /cannot sign the audit log: signing_key .* is not on protected ground/,
    );
    expect(verifyAuditChain(files(project), publicKey)).toMatchObject({
      status: 'broken',
      at: { line: 1, what: 'is not signed' },
    });
  });

  it('reports a log written before chaining as unchained, and chains what comes after it', async () => {
    const project = tree();
    const old = ['{"at":"2026-01-01T00:00:00.000Z","event":"hook_decision"}', 'not json'];
    write(project, { [TRAIL]: `${old.join('\n')}\n` });
    expect(verifyAuditChain(files(project))).toEqual({ status: 'unchained', unchained: 2 });
    await written(project, 2);
    expect(verifyAuditChain(files(project))).toMatchObject({
      status: 'ok',
      lines: 2,
      unchained: 2,
    });
  });

  it("keeps payload fields of the chain's names out of the line", async () => {
    const project = tree();
    const runtime = await createRuntime({
      extensions: [auditLog],
      cwd: project,
      logger: memoryLogger(),
    });
    runtime.emit('hook_decision', { chain_seq: 40, chain_prev: 'x', chain_sig: 'y' });
    await runtime.close();
    expect(verifyAuditChain(files(project))).toMatchObject({ status: 'ok', lines: 1 });
    expect(lines(join(project, TRAIL))[0]).not.toContain('"chain_seq":40');
  });
});
