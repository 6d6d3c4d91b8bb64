import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from './check.js';

/**
 * Where the shipped audit-log keeps the lines its trail could not take (extensions/audit-log/
 * unwritten.ts `UNWRITTEN`), below the project root.
 */
const UNWRITTEN = '.hermes/audit-log.unwritten.jsonl';
/** The latest lines shown; the file has the rest. */
const SHOWN = 3;

/**
 * The project's audit trail: the lines audit-log could not write to it (the trail's folder a link,
 * its lock never free, a full disk) and kept apart instead. A warning naming how many and the
 * latest, since a trail with holes is what an audit must hear of; nothing when there are none and
 * audit-log is not enabled.
 */
export function auditTrailChecks(projectRoot: string, auditLogEnabled: boolean): Check[] {
  const path = join(projectRoot, UNWRITTEN);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      return [
        {
          level: 'warning',
          subject: 'audit trail',
          message: `${path} (audit lines the trail could not take) cannot be read: ${(error as Error).message}`,
          fix: `make it readable by you: chmod 600 ${path}`,
        },
      ];
    }
    return auditLogEnabled
      ? [{ level: 'ok', subject: 'audit trail', message: 'no line kept apart as unwritten' }]
      : [];
  }
  const kept = text.split('\n').filter(Boolean);
  const latest = kept
    .slice(-SHOWN)
    .map((line) => `\n    ${summary(line)}`)
    .join('');
  return [
    {
      level: 'warning',
      subject: 'audit trail',
      message: `${kept.length} line(s) could not be written to the audit trail and are kept in ${path}; the latest:${latest}`,
      fix: `append each record's "line" to its "trail" once the cause is fixed (the audit-log error in the log says it), then remove ${path}`,
    },
  ];
}

function summary(text: string): string {
  try {
    const { trail, why, line } = JSON.parse(text) as {
      trail?: unknown;
      why?: unknown;
      line?: { at?: unknown; event?: unknown };
    };
    return `${String(line?.at)} ${String(line?.event)} for ${String(trail)}: ${String(why)}`;
  } catch {
    return text.slice(0, 200);
  }
}
