import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { connect, type Server, type Socket } from 'node:net';
import { atPath, type SocketId } from './markers.js';

// The hook daemon's socket: listening on it as its own, and reading one request line.

/** A request line longer than this is refused (the event is answered as unreadable). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * Listens at a path of its own, made readable by this user only, then renames it onto `socket`:
 * no other user ever sees the socket open, and a stale socket of a dead daemon (or one `taken`
 * says may be taken: markers.ts) is replaced in one step. Undefined (and nothing listening) when
 * `serving` says a daemon serves there meanwhile; else the socket as renamed, by which the daemon
 * knows the path is still its own. All or nothing: when any step fails, the server is closed and
 * its own path removed before the error is thrown, so a daemon that cannot listen leaves nothing
 * open that would keep its process alive, and no file.
 */
export async function listenAt(
  server: Server,
  socket: string,
  serving: () => Promise<boolean>,
): Promise<SocketId | undefined> {
  const own = `${socket}.${process.pid}`;
  const undo = async () => {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
    rmSync(own, { force: true });
  };
  try {
    rmSync(own, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(own, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(own, 0o600);
    if (await serving()) {
      await undo();
      return undefined;
    }
    renameSync(own, socket);
    const found = atPath(socket);
    return found.kind === 'socket' ? found.id : { ino: -1, ctimeMs: -1 };
  } catch (error) {
    await undo();
    throw error;
  }
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

/**
 * Calls `done` once with the first line (without its `\n`), or all that came before the end.
 * What comes after the line is read and dropped, so that the end of the connection is seen
 * (`ended`): a client that has gone before its event starts (protocol.ts).
 */
export function readLine(
  connection: Socket,
  done: (line: string, tooLong: boolean) => void,
): { ended(): boolean } {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  let ended = false;
  const finish = (tooLong: boolean) => {
    if (finished) return;
    finished = true;
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
  connection.on('end', () => {
    ended = true;
    finish(false);
  });
  return { ended: () => ended };
}
