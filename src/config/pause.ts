import { existsSync, readFileSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { hermesCommand } from '../command-name.js';
import { replaceFile, underFileLock } from '../fs/locked-file.js';
import { managedLocation } from '../policy/protected/managed-location.js';

/**
 * The kill switch (docs/teams.md, Kill switch): while a pause flag file is there, every tool call
 * of every host is refused before any handler runs (src/runtime/pause-switch.ts). The flag lives
 * on protected ground — `$HERMES_HOME` — so the agent can neither write nor remove it, and
 * `hermes extensions resume` is a protected command (src/policy/protected/hermes-commands.ts).
 */

/** Who paused, when and why, as the flag file holds it. */
export interface PauseFlag {
  /** The flag file. */
  readonly file: string;
  /** Who paused (`alice with hermes extensions pause --all`). */
  readonly by: string;
  /** When, as an ISO time. */
  readonly at: string;
  readonly reason?: string;
  /** The managed layer's flag, which only an admin lifts. */
  readonly managed?: true;
}

/** The user's pause flag: `$HERMES_HOME/paused.json`, which `pause --all` writes and `resume --all` removes. */
export function pauseFlagFile(home: string): string {
  return join(home, 'paused.json');
}

/**
 * Every flag file that pauses the tool calls of this home: the user's, then the managed layer's
 * (`paused.json` in the managed folder, docs/teams.md: an admin pauses every user of the machine,
 * and only an admin lifts it). Any one of them present pauses.
 */
export function pauseFlagFiles(home: string): string[] {
  return [pauseFlagFile(home), join(managedLocation().dir, 'paused.json')];
}

/**
 * The pause in force, if any. A flag file that is there but cannot be read or is not a flag
 * still pauses (what is not understood is refused), and says so as its reason.
 */
export function readPause(home: string): PauseFlag | undefined {
  const user = pauseFlagFile(home);
  for (const file of pauseFlagFiles(home)) {
    if (!existsSync(file)) continue;
    const managed = file === user ? {} : { managed: true as const };
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      return { ...unreadable(file, (error as Error).message.split('\n')[0] as string), ...managed };
    }
    const flag = parsed as Partial<PauseFlag> | null;
    if (
      flag === null ||
      typeof flag !== 'object' ||
      typeof flag.by !== 'string' ||
      typeof flag.at !== 'string' ||
      (flag.reason !== undefined && typeof flag.reason !== 'string')
    ) {
      return { ...unreadable(file, 'it is not a pause flag'), ...managed };
    }
    return {
      file,
      by: flag.by,
      at: flag.at,
      ...(flag.reason ? { reason: flag.reason } : {}),
      ...managed,
    };
  }
  return undefined;
}

function unreadable(file: string, why: string): PauseFlag {
  return {
    file,
    by: 'someone',
    at: 'an unknown time',
    reason: `its flag file cannot be read: ${why}`,
  };
}

/** How a pause is shown: `alice with … at 2026-…: incident 42`. */
export function pauseWords(flag: PauseFlag): string {
  return `paused by ${flag.by} at ${flag.at}${flag.reason === undefined ? '' : ` (reason: ${flag.reason})`}`;
}

/** The refusal every tool call gets while paused: who, why, and how the user lifts it. */
export function pauseRefusal(flag: PauseFlag): string {
  const lift = flag.managed
    ? 'their admin removes it (the managed layer, docs/teams.md)'
    : `the user lifts the pause in a terminal with \`${hermesCommand()} extensions resume --all\``;
  return `Every tool call is refused: the guards are ${pauseWords(flag)}, flag ${flag.file}. Nothing runs until ${lift}; you cannot lift it. Stop here and tell the user what you were about to do.`;
}

/** Writes the user's flag (replacing one there): every tool call is refused from now on. */
export async function pauseAll(home: string, reason: string | undefined): Promise<PauseFlag> {
  const file = pauseFlagFile(home);
  const flag: PauseFlag = {
    file,
    by: `${whoami()} with \`${hermesCommand()} extensions pause --all\``,
    at: new Date().toISOString(),
    ...(reason === undefined || reason.trim() === '' ? {} : { reason: reason.trim() }),
  };
  await underFileLock(file, () => {
    const { file: _file, ...stored } = flag;
    replaceFile(file, `${JSON.stringify(stored, null, 2)}\n`);
  });
  return flag;
}

/**
 * Removes the user's flag: what was lifted (none when the user's flag was not there), and the
 * pause still in force from another flag file (a managed one), which this cannot lift.
 */
export async function resumeAll(home: string): Promise<{ lifted?: PauseFlag; still?: PauseFlag }> {
  const file = pauseFlagFile(home);
  return underFileLock(file, () => {
    const lifted = existsSync(file) ? readPause(home) : undefined;
    rmSync(file, { force: true });
    const still = readPause(home);
    return {
      ...(lifted !== undefined && lifted.file === file ? { lifted } : {}),
      ...(still === undefined ? {} : { still }),
    };
  });
}

function whoami(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'the user';
  }
}
