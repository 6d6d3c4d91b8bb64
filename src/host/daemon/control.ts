import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DAEMON_ACK, DAEMON_PROTOCOL, type DaemonControl, type DaemonStatus } from './protocol.js';

/**
 * Sends one control line to the daemon at `socket` and reads its status line; undefined when
 * nothing answers there (no daemon, or a stale socket).
 */
export function askDaemon(
  socket: string,
  control: DaemonControl['control'],
  timeoutMs = 5_000,
): Promise<DaemonStatus | undefined> {
  return new Promise((resolve) => {
    const connection = connect(socket);
    let text = '';
    const done = (status: DaemonStatus | undefined) => {
      connection.destroy();
      resolve(status);
    };
    connection.setEncoding('utf8');
    connection.setTimeout(timeoutMs, () => done(undefined));
    connection.on('error', () => done(undefined));
    connection.on('data', (chunk: string) => {
      text += chunk;
    });
    connection.on('end', () => {
      try {
        // After the daemon's acknowledgement of the line (protocol.ts).
        const answer = text.startsWith(`${DAEMON_ACK}\n`)
          ? text.slice(DAEMON_ACK.length + 1)
          : text;
        const status = JSON.parse(answer) as DaemonStatus;
        done(typeof status?.pid === 'number' ? status : undefined);
      } catch {
        done(undefined);
      }
    });
    const line: DaemonControl = { v: DAEMON_PROTOCOL, control };
    connection.end(`${JSON.stringify(line)}\n`);
  });
}

/** Every socket in the daemons' folder (one per home and environment). */
export function daemonSockets(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.sock'))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}
