/**
 * Changes one server of an MCP config in its text, leaving every other byte as it was: the user's
 * one-line lists, spacing and comments-free layout stay, and an uninstall after an install gives
 * back the file byte for byte. The text has parsed as JSON already (config-file.ts); where the
 * layout is not the one these edits assume (one member a line), undefined is returned and the
 * caller writes the whole file in its indentation instead.
 */

interface Member {
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

interface ObjectSpan {
  start: number;
  end: number;
  members: Map<string, Member>;
  /** In order of the text. */
  order: Member[];
}

/** The member `key` of the top-level object, then `name` in it: the object of servers and its members. */
export function serversSpan(text: string, key: string): ObjectSpan | undefined {
  const top = objectAt(text, skipSpace(text, 0));
  const servers = top?.members.get(key);
  if (top === undefined || top.members.size !== top.order.length) return undefined;
  if (servers === undefined || text[servers.valueStart] !== '{') return undefined;
  const span = objectAt(text, servers.valueStart);
  // A name given twice: the edits below would leave one of them; the caller writes the whole file.
  return span !== undefined && span.members.size === span.order.length ? span : undefined;
}

/** `text` with the value of server `name` replaced by `value`. */
export function replaceServer(
  text: string,
  servers: ObjectSpan,
  name: string,
  value: unknown,
  indent: string,
  eol: string,
): string | undefined {
  const member = servers.members.get(name);
  if (member === undefined) return undefined;
  // The entry's own text, as install found it: given back byte for byte.
  const json =
    typeof value === 'object' && value !== null && RAW in value
      ? String((value as { [RAW]: string })[RAW])
      : laidOut(value, indent, lineIndent(text, member.keyStart), eol);
  return text.slice(0, member.valueStart) + json + text.slice(member.valueEnd);
}

/** A value to write as this text (the entry's own, kept by install). */
export const RAW = Symbol('raw text');

/** The text of server `name`'s value, as it is in `text`. */
export function serverText(text: string, servers: ObjectSpan, name: string): string | undefined {
  const member = servers.members.get(name);
  return member === undefined ? undefined : text.slice(member.valueStart, member.valueEnd);
}

/** `text` with server `name` added after the last one (in an object of one member a line). */
export function addServer(
  text: string,
  servers: ObjectSpan,
  name: string,
  value: unknown,
  indent: string,
  eol: string,
): string | undefined {
  const last = servers.order.at(-1);
  if (last === undefined) {
    // None yet (`{}`): one member a line, one level deeper than the line the object opens on.
    const at = lineIndent(text, servers.start);
    const member = `${JSON.stringify(name)}: ${laidOut(value, indent, at + indent, eol)}`;
    return `${text.slice(0, servers.start)}{${eol}${at}${indent}${member}${eol}${at}}${text.slice(servers.end)}`;
  }
  if (!ownLine(text, last.keyStart)) return undefined;
  const at = lineIndent(text, last.keyStart);
  const member = `${JSON.stringify(name)}: ${laidOut(value, indent, at, eol)}`;
  return `${text.slice(0, last.valueEnd)},${eol}${at}${member}${text.slice(last.valueEnd)}`;
}

/** `text` without server `name` (and the comma that separated it); the last one leaves `{}`. */
export function removeServer(text: string, servers: ObjectSpan, name: string): string | undefined {
  const member = servers.members.get(name);
  if (member === undefined) return undefined;
  const index = servers.order.indexOf(member);
  if (servers.order.length === 1)
    return `${text.slice(0, servers.start)}{}${text.slice(servers.end)}`;
  if (index > 0) {
    const before = servers.order[index - 1] as Member;
    return text.slice(0, before.valueEnd) + text.slice(member.valueEnd);
  }
  const next = servers.order[1] as Member;
  return text.slice(0, member.keyStart) + text.slice(next.keyStart);
}

function laidOut(value: unknown, indent: string, at: string, eol: string): string {
  return JSON.stringify(value, null, indent).replaceAll('\n', `${eol}${at}`);
}

/** The white space that starts the line `position` is on. */
function lineIndent(text: string, position: number): string {
  const start = text.lastIndexOf('\n', position - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, position))?.[0] ?? '';
}

/** Nothing but white space before `position` on its line. */
function ownLine(text: string, position: number): boolean {
  const start = text.lastIndexOf('\n', position - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, position));
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

/** The end (exclusive) of the string that starts at `at` (a `"`). */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    if (text[i] === '\\') i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  return text.length;
}

/** The end (exclusive) of the value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first === '{' || first === '[') {
    const close = first === '{' ? '}' : ']';
    let i = skipSpace(text, at + 1);
    while (i < text.length && text[i] !== close) {
      if (first === '{') {
        i = skipSpace(text, stringEnd(text, i));
        i = skipSpace(text, i + 1); // the colon
      }
      i = skipSpace(text, valueEnd(text, i));
      if (text[i] === ',') i = skipSpace(text, i + 1);
    }
    return i + 1;
  }
  return at + (/^[^\s,\]}]+/.exec(text.slice(at))?.[0].length ?? 1);
}

function objectAt(text: string, at: number): ObjectSpan | undefined {
  if (text[at] !== '{') return undefined;
  const members = new Map<string, Member>();
  const order: Member[] = [];
  let i = skipSpace(text, at + 1);
  while (i < text.length && text[i] !== '}') {
    const keyStart = i;
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, valueStart);
    const member = { keyStart, valueStart, valueEnd: end };
    // A key given twice: JSON.parse keeps the last, so does this.
    members.set(key, member);
    order.push(member);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return { start: at, end: i + 1, members, order };
}
