import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * ` --cwd <folder>` for a command a message tells the user to run, or nothing when they run
 * commands from that folder already: inside the project `hermes extensions trust` is the whole
 * command. The folder is quoted for the shell when it needs to be.
 */
export function cwdFlag(folder: string | undefined): string {
  if (folder === undefined || real(process.cwd()) === real(folder)) return '';
  const word = /^[\w@%+=:,./-]+$/.test(folder) ? folder : `'${folder.replaceAll("'", `'\\''`)}'`;
  return ` --cwd ${word}`;
}

function real(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return resolve(folder);
  }
}
