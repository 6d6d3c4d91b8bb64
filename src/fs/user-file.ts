import { chmodSync, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceFile } from './locked-file.js';

/**
 * Writes a file of the user's or of an agent's (an agent's settings, Hermes' config, the user's
 * `config.yaml`) whole: beside it, then renamed over it (locked-file.ts, `replaceFile`). An agent
 * that reads it at that moment reads the old file or the new one, never half of one (half a
 * settings file is a file whose hooks the agent cannot read), and a write stopped half-way (a
 * full disk, a kill) leaves the old one as it was. A file that is a link (a dotfiles
 * repository's) is written where it leads, with the mode it had: the link stays a link. A new
 * file is made as `writeFileSync` would make it (0666 less the umask), its folder too.
 */
export function rewriteUserFile(file: string, text: string | Uint8Array): void {
  const target = existsSync(file) ? realpathSync(file) : file;
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : undefined;
  mkdirSync(dirname(target), { recursive: true });
  replaceFile(target, text, mode ?? 0o666);
  // Made under the umask: the mode it had, exactly.
  if (mode !== undefined) chmodSync(target, mode);
}
