import { CliError } from '../io.js';

/** A duration's unit in milliseconds: `30s`, `15m`, `2h`, `7d`, `1w`. */
const UNITS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * `--since` of the commands that read the audit log, as milliseconds: a duration back from `now`
 * (`2h`, `7d`), or an ISO date or time. Anything else is refused, with the forms it takes.
 */
export function sinceOf(since: string | undefined, now = Date.now()): number | undefined {
  if (since === undefined) return undefined;
  const duration = /^(\d+)([smhdw])$/.exec(since.trim());
  if (duration) return now - Number(duration[1]) * (UNITS[duration[2] as string] as number);
  const at = Date.parse(since);
  if (Number.isNaN(at)) {
    throw new CliError(
      `--since must be an ISO date or time, such as 2026-11-01 or 2026-11-01T12:00:00Z, or a duration back from now, such as 30m, 2h or 7d; got ${JSON.stringify(since)}`,
      2,
    );
  }
  return at;
}
