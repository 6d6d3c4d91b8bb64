import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile, underFileLock } from '../../../fs/locked-file.js';
import type { ServerEntry } from './wrapped.js';

/**
 * What `hermes mcp install` found and wrote, kept in `$HERMES_HOME/mcp-installs.json` (protected
 * ground, so the agent cannot forge what uninstall restores), by config file and server name:
 * `original` the entry as it was (null: there was none, install added it), `wrapped` the entry
 * written. `uninstall` puts `original` back when the entry is still `wrapped`; one changed since
 * is unwrapped from its own words instead (docs/mcp.md).
 */
export interface InstallRecord {
  original: ServerEntry | null;
  wrapped: ServerEntry;
  /** `original` as its text was in the file, so that uninstall gives back its layout too. */
  originalText?: string;
  /** Install made the file: an uninstall that leaves it with no server removes it. */
  fileWasAbsent?: boolean;
}

type Records = Record<string, Record<string, InstallRecord>>;

export const INSTALL_RECORDS = 'mcp-installs.json';

function recordsFile(home: string): string {
  return join(home, INSTALL_RECORDS);
}

function readRecords(file: string): Records {
  if (!existsSync(file)) return {};
  try {
    const records = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return records !== null && typeof records === 'object' && !Array.isArray(records)
      ? (records as Records)
      : {};
  } catch {
    // Unreadable records only cost uninstall its exact restore: it unwraps from the entry's words.
    return {};
  }
}

export function installRecord(
  home: string,
  config: string,
  name: string,
): InstallRecord | undefined {
  return readRecords(recordsFile(home))[config]?.[name];
}

/** Sets (or, with undefined, removes) the record of server `name` in `config`. */
export async function keepInstallRecord(
  home: string,
  config: string,
  name: string,
  record: InstallRecord | undefined,
): Promise<void> {
  const file = recordsFile(home);
  await underFileLock(file, () => {
    const records = readRecords(file);
    const servers = { ...records[config] };
    if (record === undefined) delete servers[name];
    else servers[name] = record;
    if (Object.keys(servers).length === 0) delete records[config];
    else records[config] = servers;
    replaceFile(file, `${JSON.stringify(records, null, 2)}\n`);
  });
}
