import type { FileChange } from '../../../trust/trust-diff.js';
import { type Io, paint } from '../../io.js';

/**
 * Control characters, and the Unicode marks that reorder text on screen: a file under review could
 * use them to move the cursor, clear lines or reverse what a line seems to say, and so show the
 * user something other than what it holds. Tab is the only one left as it is.
 */
const HIDING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character that could hide or rearrange what is shown written out as `\xNN`. */
export function printable(text: string): string {
  return text.replace(HIDING, (c) => {
    const code = c.codePointAt(0) as number;
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * What changed since the project was trusted: one line per file (`changed`, `added`, `removed`),
 * under each added or changed one its diff or why there is none.
 */
export function showChanges(io: Io, changes: readonly FileChange[]): void {
  for (const change of changes) {
    const note = change.noDiff ? ` (${change.noDiff})` : '';
    io.out(`  ${change.kind.padEnd(8)} ${printable(change.path)}${note}`);
    for (const line of change.diff ?? []) io.out(`      ${colour(io, printable(line))}`);
    if (change.more) {
      io.out(`      … ${change.more} more line(s) of diff not shown: read the file itself`);
    }
  }
}

/** `1 changed, 2 added, 1 removed`. */
export function countChanges(changes: readonly FileChange[]): string {
  const count = (kind: FileChange['kind']) => changes.filter((c) => c.kind === kind).length;
  return (['changed', 'added', 'removed'] as const)
    .filter((kind) => count(kind) > 0)
    .map((kind) => `${count(kind)} ${kind}`)
    .join(', ');
}

function colour(io: Io, line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return paint(io, 'bold', line);
  if (line.startsWith('+')) return paint(io, 'green', line);
  if (line.startsWith('-')) return paint(io, 'red', line);
  if (line.startsWith('@@')) return paint(io, 'dim', line);
  return line;
}
