import { chmodSync, chownSync, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceFile } from './locked-file.js';

/**
 * Writes a file of the user's or of an agent's (an agent's settings, Hermes' config, the user's
 * `config.yaml`) whole: beside it, then renamed over it (locked-file.ts, `replaceFile`). An agent
 * that reads it at that moment reads the old file or the new one, never half of one (half a
 * settings file is a file whose hooks the agent cannot read), and a write stopped half-way (a
 * full disk, a kill) leaves the old one as it was. A file that is a link (a dotfiles
 * repository's) is written where it leads, with the mode it had: the link stays a link. Its owner
 * is kept too where this process may give it (root, as under `sudo`: else the agent, running as
 * the user, could no longer write its own settings). A new file is made as `writeFileSync` would
 * make it (0666 less the umask), its folder too.
 */
export function rewriteUserFile(file: string, text: string | Uint8Array): void {
  const target = existsSync(file) ? realpathSync(file) : file;
  const before = existsSync(target) ? statSync(target) : undefined;
  mkdirSync(dirname(target), { recursive: true });
  replaceFile(target, text, before === undefined ? 0o666 : before.mode & 0o7777);
  if (before === undefined) return;
  // Made as this process's user and under the umask: the owner and mode it had, exactly.
  const made = statSync(target);
  if (made.uid !== before.uid || made.gid !== before.gid) {
    try {
      chownSync(target, before.uid, before.gid);
    } catch {
      // Not ours to give (no privilege): the file is the writer's, as any new file would be.
    }
  }
  chmodSync(target, before.mode & 0o7777);
}
