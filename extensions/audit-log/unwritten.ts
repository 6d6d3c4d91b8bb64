import { join } from 'node:path';
import type { Logger } from 'hermes-extensions';
import { openLog, realFolders } from './files.js';

/**
 * Where lines the trail could not take are kept, below the project root, whatever the trail's
 * own path: `hermes extensions doctor` looks here (src/cli/commands/doctor/audit-trail.ts).
 */
export const UNWRITTEN = '.hermes/audit-log.unwritten.jsonl';

/**
 * Keeps `lines` (records not yet chained, without their newline), which could not be written to the trail `trail` (`why`), one JSON line each
 * naming the trail, the reason and the line, and logs it as an error. Written with the trail's own
 * care (real folders, a regular file); if that fails too, the lines go into the error logged, so
 * a lost line is never silent.
 */
export async function recordUnwritten(
  hermes: { projectRoot: string; log: Logger },
  trail: string,
  lines: readonly string[],
  why: string,
): Promise<void> {
  const record = join(hermes.projectRoot, UNWRITTEN);
  const text = lines
    .map((line) => `${JSON.stringify({ trail, why, line: JSON.parse(line) })}\n`)
    .join('');
  try {
    await realFolders(hermes.projectRoot, record);
    const handle = await openLog(record);
    try {
      await handle.appendFile(text);
    } finally {
      await handle.close();
    }
  } catch (error) {
    hermes.log.error(
      `${lines.length} audit line(s) could not be written to ${trail} (${why}), nor kept in ${record} (${(error as Error).message}); they are:\n${lines.join('\n')}`,
    );
    return;
  }
  hermes.log.error(
    `${lines.length} audit line(s) could not be written to ${trail} (${why}); kept in ${record}, which \`hermes extensions doctor\` reports`,
  );
}
