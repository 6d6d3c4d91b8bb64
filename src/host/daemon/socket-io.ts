import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { connect, type Server, type Socket } from 'node:net';

// The hook daemon's socket: listening on it as its own, and reading one request line.

/** A request line longer than this is refused (the event is answered as unreadable). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * Listens at a path of its own, made readable by this user only, then renames it onto `socket`:
 * no other user ever sees the socket open, and a stale socket of a dead daemon is replaced in one
 * step. Undefined (and nothing listening) when a live daemon answered there meanwhile; else the
 * socket's inode, by which the daemon knows the path is still its own.
 */
export async function listenAt(server: Server, socket: string): Promise<number | undefined> {
  const own = `${socket}.${process.pid}`;
  rmSync(own, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(own, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(own, 0o600);
  if (await answers(socket)) {
    await new Promise((resolve) => server.close(resolve));
    rmSync(own, { force: true });
    return undefined;
  }
  renameSync(own, socket);
  return inodeOf(socket);
}

/** Whether a daemon answers at `socket` (a connection is accepted). */
export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    const done = (live: boolean) => {
      probe.destroy();
      resolve(live);
    };
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
    probe.setTimeout(1_000, () => done(false));
  });
}

export function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** Calls `done` once with the first line (without its `\n`), or all that came before the end. */
export function readLine(connection: Socket, done: (line: string, tooLong: boolean) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  const finish = (tooLong: boolean) => {
    if (finished) return;
    finished = true;
    connection.pause();
    done(Buffer.concat(chunks).toString('utf8'), tooLong);
  };
  connection.on('data', (chunk: Buffer) => {
    if (finished) return;
    const end = chunk.indexOf(10);
    chunks.push(end === -1 ? chunk : chunk.subarray(0, end));
    length += end === -1 ? chunk.length : end;
    if (length > MAX_REQUEST_BYTES) finish(true);
    else if (end !== -1) finish(false);
  });
  connection.on('end', () => finish(false));
}
