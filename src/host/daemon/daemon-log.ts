import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../log/logger.js';

/** Past this size the log is rotated: a daemon writes a few lines an hour, warnings mostly. */
export const DAEMON_LOG_MAX_BYTES = 1024 * 1024;
/** Rotated files kept: `daemon.log.1` (the newest) to `daemon.log.3`. */
export const DAEMON_LOG_KEEP = 3;

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** The hook daemon's log of the home `home`: `$HERMES_HOME/logs/daemon.log`. */
export function daemonLogPath(home: string): string {
  return join(home, 'logs', 'daemon.log');
}

export interface DaemonLogOptions {
  maxBytes?: number;
  keep?: number;
  /** Where each line goes as well (the daemon's stderr), as it was given, without the stamp. */
  alsoTo?: Logger;
}

/**
 * The hook daemon's own log: a daemon started by a hook client has its output thrown away, so
 * what it logs outside an answer (an extension's warning after the event, an observer's or an
 * exporter's failure) would be lost without it. Each line is stamped with the time, the pid and
 * the level (`2026-01-02T03:04:05.678Z pid=123 warn …`; the lines after a message's first are
 * indented two spaces), so the daemons of one home (one per hook environment) can share the file.
 * The folder is made 0700 and the file 0600: warnings can quote what an agent did.
 *
 * Each line is appended synchronously, in one write: lines are rare, the order stays that of
 * the events, and a line logged just before the process ends is on the disk. Rotated by size
 * here (a few lines of code) rather than through a logging library and a rotating stream (pino or
 * winston with theirs): the daemon is loaded by every hook that starts one, and writes little.
 * The size is read from the file before each line, since another daemon of the home may have
 * written or rotated it; two rotating at the same moment may drop one old file, never a line
 * being written. A log that cannot be written never fails the daemon: the line goes to
 * `alsoTo` (or stderr), with the reason once.
 */
export function daemonLog(home: string, options: DaemonLogOptions = {}): Logger {
  const path = daemonLogPath(home);
  const maxBytes = options.maxBytes ?? DAEMON_LOG_MAX_BYTES;
  const keep = options.keep ?? DAEMON_LOG_KEEP;
  const fallback = options.alsoTo;
  let broken = false;
  let prepared = false;

  const prepare = () => {
    const dir = join(home, 'logs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    try {
      chmodSync(path, 0o600);
    } catch {
      // Not there yet: made 0600 below.
    }
    prepared = true;
  };

  const rotate = () => {
    rmSync(`${path}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) renameQuietly(`${path}.${i}`, `${path}.${i + 1}`);
    if (keep === 0) rmSync(path, { force: true });
    else renameQuietly(path, `${path}.1`);
  };

  const write = (level: LogLevel, message: string) => {
    const line = `${new Date().toISOString()} pid=${process.pid} ${level} ${message.replace(/\n/g, '\n  ')}\n`;
    try {
      if (!prepared) prepare();
      const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      if (size > 0 && size + Buffer.byteLength(line) > maxBytes) rotate();
      appendFileSync(path, line, { mode: 0o600 });
      return true;
    } catch (error) {
      if (!broken) {
        broken = true;
        const why = `hermes daemon: cannot write its log ${path} (${(error as Error).message}); logging to stderr`;
        if (fallback) fallback.error(why);
        else process.stderr.write(`${why}\n`);
      }
      return false;
    }
  };

  const at = (level: LogLevel) => (message: string) => {
    if (level === 'debug' && !process.env.HERMES_DEBUG) return;
    const written = write(level, message);
    if (fallback) fallback[level](message);
    else if (!written) process.stderr.write(`${message}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function renameQuietly(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    // Not there (fewer old files than kept yet), or taken by another daemon's rotation.
  }
}

/** One line of the log as `daemonLog` writes it. */
export interface LogLine {
  at: string;
  pid: number;
  level: LogLevel;
  message: string;
}

/** The lines of a log's text (a message's indented lines joined back to it). */
export function parseDaemonLog(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const raw of text.split('\n')) {
    const head = /^(\S+) pid=(\d+) (debug|info|warn|error) (.*)$/.exec(raw);
    const last = lines[lines.length - 1];
    if (head) {
      const [, at, pid, level, message] = head as unknown as [
        string,
        string,
        string,
        LogLevel,
        string,
      ];
      lines.push({ at, pid: Number(pid), level, message });
    } else if (raw.startsWith('  ') && last !== undefined) {
      last.message += `\n${raw.slice(2)}`;
    }
  }
  return lines;
}
