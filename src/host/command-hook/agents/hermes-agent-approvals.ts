import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Of `events`, those for which the Hermes agent has not been allowed to run `command`. Hermes
 * asks once per (event, command) pair, in a terminal, and records the answer in
 * `$HERMES_HOME/shell-hooks-allowlist.json` (`{"approvals": [{event, command, …}]}`); where
 * nobody can answer it skips the hook with a warning, so an unapproved guard does not run.
 * `HERMES_ACCEPT_HOOKS` (truthy) or `hooks_auto_accept: true` in its config approve every hook.
 * A file that cannot be read approves nothing.
 */
export function unapprovedHermesHooks(
  home: string,
  command: string,
  events: readonly string[],
): string[] {
  if (TRUTHY.has((process.env.HERMES_ACCEPT_HOOKS ?? '').trim().toLowerCase())) return [];
  if (autoAccepts(join(home, 'config.yaml'))) return [];
  const approved = approvals(join(home, 'shell-hooks-allowlist.json'));
  return events.filter(
    (event) => !approved.some((entry) => entry.event === event && entry.command === command),
  );
}

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

function autoAccepts(file: string): boolean {
  try {
    const value = (parse(readFileSync(file, 'utf8')) as { hooks_auto_accept?: unknown } | null)
      ?.hooks_auto_accept;
    return value === true || (typeof value === 'string' && TRUTHY.has(value.trim().toLowerCase()));
  } catch {
    return false;
  }
}

function approvals(file: string): Array<{ event?: unknown; command?: unknown }> {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as {
      approvals?: unknown;
    };
    return Array.isArray(data?.approvals) ? data.approvals : [];
  } catch {
    return [];
  }
}
