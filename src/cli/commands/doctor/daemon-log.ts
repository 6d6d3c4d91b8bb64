import { readFileSync } from 'node:fs';
import { daemonLogPath, parseDaemonLog } from '../../../host/daemon/daemon-log.js';
import type { Check } from './check.js';

/** How far back the log's warnings count as news. */
const RECENT_MS = 24 * 60 * 60 * 1000;
/** The latest problems shown; the log has the rest. */
const SHOWN = 3;

/**
 * The hook daemon's log (`$HERMES_HOME/logs/daemon.log`): where it is, and the warnings and errors
 * it logged in the last day — an extension that fails after its answers, an exporter that cannot
 * reach its collector — which a user of the daemon saw at most once, beside a later answer.
 * Nothing when there is no log (no daemon has run for this home). A warning, not an error: the
 * daemon answered; the log says what went wrong around it.
 */
export function daemonLogChecks(home: string, now = Date.now()): Check[] {
  const path = daemonLogPath(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return [
      {
        level: 'warning',
        subject: 'hook daemon log',
        message: `${path} cannot be read: ${(error as Error).message}`,
        fix: `make it readable by you (the daemon writes it 0600): chmod 600 ${path}`,
      },
    ];
  }
  const recent = parseDaemonLog(text).filter(
    (line) =>
      (line.level === 'warn' || line.level === 'error') && now - Date.parse(line.at) <= RECENT_MS,
  );
  if (recent.length === 0) {
    return [
      {
        level: 'ok',
        subject: 'hook daemon log',
        message: `${path}: no warning or error in the last 24 hours`,
      },
    ];
  }
  const latest = recent
    .slice(-SHOWN)
    .map((line) => `\n    ${line.at} ${line.level}: ${line.message.split('\n')[0]}`)
    .join('');
  return [
    {
      level: 'warning',
      subject: 'hook daemon log',
      message: `${recent.length} warning(s) or error(s) in ${path} in the last 24 hours; the latest:${latest}`,
      fix: `read ${path}: each line names the extension that logged it`,
    },
  ];
}
