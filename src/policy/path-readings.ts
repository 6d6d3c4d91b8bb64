import { fileURLToPath } from 'node:url';

/** The names a tool may make of a path it is given, or why the text cannot be placed. */
export type PathReadings = { readings: string[] } | { unreadable: string };

const ESCAPE = /%[0-9a-f]{2}/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
/** `%252e` is `%2e` once decoded, `.` twice; a name escaped more often than this is refused. */
const MAX_DECODES = 3;

/**
 * Every file a tool given `given` as a path may write to, as the text to resolve: the text as
 * given, with `%`-escapes decoded (once, and again while escapes remain: `plans/%2e%2e/src` is
 * `src` to a tool that decodes it), read as a `file:` URL, and each of these with `\` read as `/`
 * (a tool on Windows, or one that normalizes separators, takes `plans\..\src` as `src`), and in
 * NFKC form (a tool that folds compatibility characters takes `plans/．．/src` as `src`). A guard
 * that wants a write confined checks every reading, since it cannot know which one the tool
 * makes. Unreadable: a control character (a NUL or a line break, where a tool may cut the name),
 * an escape that does not decode, a `file:` URL that names no local file.
 */
export function pathReadings(given: string): PathReadings {
  if (CONTROL.test(given)) {
    return { unreadable: 'it holds a control character (a NUL or a line break)' };
  }
  const texts = [given];
  let current = given;
  for (let round = 0; ESCAPE.test(current); round++) {
    if (round === MAX_DECODES) return { unreadable: `its %-escapes are nested too deep` };
    try {
      current = decodeURIComponent(current);
    } catch {
      return { unreadable: 'it holds a %-escape that does not decode' };
    }
    if (CONTROL.test(current)) {
      return { unreadable: 'a %-escape in it decodes to a control character' };
    }
    texts.push(current);
  }
  for (const text of [...texts]) {
    if (!/^file:/i.test(text)) continue;
    let path: string;
    try {
      path = fileURLToPath(text);
    } catch {
      return { unreadable: 'it is a file: URL that names no local file' };
    }
    if (CONTROL.test(path)) return { unreadable: 'it is a file: URL with a control character' };
    texts.push(path);
  }
  for (const text of [...texts]) {
    const compatible = text.normalize('NFKC');
    if (compatible !== text) texts.push(compatible);
  }
  for (const text of [...texts]) if (text.includes('\\')) texts.push(text.replace(/\\/g, '/'));
  return { readings: [...new Set(texts)] };
}
