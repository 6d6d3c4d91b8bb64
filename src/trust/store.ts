import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `hermes extensions trust` recorded for one project root. */
export interface TrustRecord {
  fingerprint: string;
  /** Folders and files inside the project that config `paths` named when it was trusted. */
  paths: string[];
  trustedAt: string;
}

interface TrustFile {
  version: 1;
  projects: Record<string, TrustRecord>;
}

const FILE_NAME = 'trusted-projects.json';

export function trustFile(home: string): string {
  return join(home, FILE_NAME);
}

/** The records; a missing or unreadable file trusts nothing. */
export function readTrust(home: string): Record<string, TrustRecord> {
  try {
    const parsed = JSON.parse(readFileSync(trustFile(home), 'utf8')) as Partial<TrustFile>;
    return parsed?.projects && typeof parsed.projects === 'object' ? parsed.projects : {};
  } catch {
    return {};
  }
}

/** Written whole to a temporary file and renamed, so a reader never sees half a file. */
export function writeTrust(home: string, projects: Record<string, TrustRecord>): void {
  mkdirSync(home, { recursive: true });
  const file = trustFile(home);
  const temporary = `${file}.${process.pid}.tmp`;
  const content: TrustFile = { version: 1, projects };
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
