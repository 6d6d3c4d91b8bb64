import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenAt } from '../../../src/host/daemon/socket-io.js';
import { socketFolder } from './daemon-support.js';

describe('listening at the daemon socket (listenAt)', () => {
  it('is all or nothing: when taking the path fails, the server is closed and its own socket removed', async () => {
    const dir = socketFolder();
    const socket = join(dir, 'k.sock');
    const server = createServer();
    // Something that is no socket appears at the path between the check and the rename.
    const taken = listenAt(server, socket, async () => {
      mkdirSync(socket);
      return false;
    });
    await expect(taken).rejects.toThrow(/EISDIR|EEXIST|ENOTEMPTY|directory/i);
    expect(server.listening).toBe(false);
    expect(readdirSync(dir)).toEqual(['k.sock']);
  });

  it('leaves nothing when another daemon serves meanwhile, and takes the path when none does', async () => {
    const dir = socketFolder();
    const socket = join(dir, 'k.sock');
    const loser = createServer();
    expect(await listenAt(loser, socket, async () => true)).toBeUndefined();
    expect(loser.listening).toBe(false);
    expect(readdirSync(dir)).toEqual([]);

    const winner = createServer();
    const id = await listenAt(winner, socket, async () => false);
    try {
      expect(id?.ino).toBeGreaterThan(0);
      expect(existsSync(socket)).toBe(true);
      expect(readdirSync(dir)).toEqual(['k.sock']);
    } finally {
      await new Promise((closed) => winner.close(closed));
    }
  });
});
