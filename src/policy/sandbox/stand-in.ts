import { readFileSync, type Stats } from 'node:fs';
import { shellWord } from './quote.js';

/**
 * A stand-in for a missing login start-up file that bash reads only while it exists, in front of
 * a later one (`~/.bash_profile` before `~/.bash_login` and `~/.profile`; ground.ts,
 * `ProtectedPlace.hides`).
 *
 * The protected-ground sandbox blocks a missing place with a mount point that stays on the disk
 * while the command runs: an empty file there would make every login shell started meanwhile,
 * outside the sandbox, read nothing in place of the user's `~/.profile`; left unblocked, a command
 * could create `~/.bash_profile` with an `exit 0` in it and silence every Codex hook. So the line
 * makes the mount point itself, before bubblewrap, as a read-only file whose text does what bash
 * does when the file is missing: it reads the first of the later files that is there. bubblewrap
 * binds the same text over it, read-only, from a copy on protected ground (`$HERMES_HOME/
 * ground-sandbox`), so a login shell inside the sandbox reads the same; after the command the
 * line removes it (ground-sandbox.ts). A line killed before that leaves a file that
 * changes nothing, which the next line takes for a place still missing and removes.
 */
export function standInText(hides: readonly string[]): string {
  const branches = hides.map(
    (path, i) => `${i === 0 ? 'if' : 'elif'} [ -e ${shellWord(path)} ]; then . ${shellWord(path)}`,
  );
  return [
    '# hermes-extensions: this file stands in for a missing one while a command runs in the',
    '# protected-ground sandbox, and is removed when it ends (docs/trust.md, Protected ground).',
    '# bash reads what it reads when this file is not there:',
    `${branches.join('; ')}; fi`,
    '',
  ].join('\n');
}

/**
 * Whether what is at a place (`stats`, one look at it) is a stand-in (`text`) that a line holds
 * or a killed one left: a regular file with no write bits and one name, holding exactly that
 * text. Like an empty mount point, it stands for a place that does not exist — and so does one
 * gone before its text could be read (a line that ended meanwhile removed it).
 */
export function isStandIn(path: string, stats: Stats, text: string): boolean {
  if (!stats.isFile() || (stats.mode & 0o222) !== 0 || stats.nlink !== 1) return false;
  if (stats.size !== Buffer.byteLength(text)) return false;
  try {
    return readFileSync(path, 'utf8') === text;
  } catch (error) {
    return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  }
}

/**
 * The words that make each stand-in, then run the rest of the line (`exec "$@"`): a file made
 * with nothing there (`set -C`: never over a file, nor through a link), read-only (`umask 222`,
 * in a subshell: the command keeps the umask it was given).
 * Where something is there already (a stand-in another line holds, or a file made meanwhile)
 * it is left as it is: bubblewrap binds over it all the same. `bash -p`: no `BASH_ENV`, no
 * functions or shell options from the environment, in a shell that runs outside the sandbox.
 */
export function standInsMade(
  bash: string,
  standIns: readonly { path: string; text: string }[],
): string {
  const script =
    'while [ "$1" != -- ]; do [ -e "$2" ] || [ -L "$2" ] || (umask 222; set -C; printf %s "$1" > "$2") 2>/dev/null; shift 2; done; shift; exec "$@"';
  return [
    shellWord(bash),
    '-p',
    '-c',
    shellWord(script),
    'hermes-stand-in',
    ...standIns.flatMap(({ path, text }) => [shellWord(text), shellWord(path)]),
    '--',
  ].join(' ');
}

/** A path as a pattern of find's `-path` that matches only itself. */
export function findPathPattern(path: string): string {
  return path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
