import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonKey, nodeIdentity } from '../../../src/host/daemon/protocol.js';
import { sha256Hex } from '../../../src/host/daemon/sha256.js';

/**
 * The daemon's socket is named by a SHA-256 the hook client computes without `node:crypto`
 * (sha256.ts): it must be the digest itself, or a client and a daemon built from another copy
 * could name different sockets, and one name could stand for two daemons.
 */
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('is the SHA-256 of the UTF-8 bytes, at every length around a block edge', () => {
    const wrong: number[] = [];
    for (let length = 0; length <= 200; length++) {
      const text = 'x'.repeat(length);
      if (sha256Hex(text) !== digest(text)) wrong.push(length);
    }
    expect(wrong).toEqual([]);
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('is the digest of text with characters past ASCII, NULs, and of a long random text', () => {
    const texts = [
      '/home/zoë/.hermes\0 0.1.0\0v20.19.0\0 3\0HERMES_X=日本語 🚀',
      '\0'.repeat(70),
      randomBytes(100_000).toString('latin1'),
      randomBytes(3_000).toString('base64'),
    ];
    for (const text of texts) expect(sha256Hex(text)).toBe(digest(text));
  });

  it('names the socket as the digest of what makes a daemon did', () => {
    const env = { HERMES_HOME: '/h', LANG: 'C.UTF-8', PATH: '/bin', OTEL_X: 'é' };
    const made = ['/h', '1.2.3', nodeIdentity(), 3, 'HERMES_HOME=/h', 'LANG=C.UTF-8', 'OTEL_X=é'];
    expect(daemonKey('/h', '1.2.3', env)).toBe(digest(made.join('\0')).slice(0, 24));
  });

  it('names Node by its program file: another file, or the same one changed, is another daemon', () => {
    const node = statSync(process.execPath, { bigint: true });
    expect(nodeIdentity()).toBe(
      `${node.dev}:${node.ino}:${node.size}:${node.mtimeNs / 1_000_000_000n}`,
    );
    const copy = join(mkdtempSync(join(tmpdir(), 'hermes-node-')), 'node');
    copyFileSync(process.execPath, copy);
    expect(nodeIdentity(copy)).not.toBe(nodeIdentity());
    const env = { HERMES_HOME: '/h' };
    expect(daemonKey('/h', '1.2.3', env, nodeIdentity(copy))).not.toBe(
      daemonKey('/h', '1.2.3', env),
    );
    const before = nodeIdentity(copy);
    utimesSync(copy, new Date(), new Date(Date.now() + 5_000));
    expect(nodeIdentity(copy)).not.toBe(before);
  });
});
