import { isDeepStrictEqual } from 'node:util';
import { type Document, isMap, isScalar, isSeq, type Node, parseDocument, stringify } from 'yaml';

/** A list of names in a YAML config, after an edit. */
export interface Edited {
  /** Whether the name was added or removed (false: it was, or was not, there already). */
  changed: boolean;
  text: string;
}

/** Where the list is: a key of a top-level section (`extensions.disabled`, `plugins.enabled`). */
export type ListPath = readonly [section: string, key: string];

/**
 * Adds `name` to the list at `path` of a YAML config (or removes it, `add` false), changing only
 * the lines of that list: everything else — comments and their spacing, flow or block style,
 * quoting, order — stays byte for byte. The edit is checked by parsing it again; where the
 * layout is one this does not edit in place (a list with comments inside its brackets, several
 * documents), the yaml library writes the document instead, keeping comments and flow lists.
 * A value at `path` that is not a list is replaced by one. Throws on a text that does not parse.
 * `hermes extensions enable|disable` edit `extensions.disabled` with it, the Hermes agent
 * plugin's installer `plugins.enabled`.
 */
export function editYamlList(text: string, path: ListPath, name: string, add: boolean): Edited {
  const document = parseDocument(text);
  const problem = document.errors[0];
  if (problem) throw new Error(problem.message);
  const current = document.getIn(path, true) as Node | undefined;
  const names = isSeq(current) ? (current.toJSON() as unknown[]) : [];
  const changed = add ? !names.includes(name) : names.includes(name);
  if (!changed) return { changed, text };
  const expected = document.clone();
  const list = expected.getIn(path, true);
  if (isSeq(list)) {
    if (add) list.add(name);
    else list.delete(names.indexOf(name));
  } else {
    expected.setIn(path, expected.createNode([name]));
  }
  const spliced = add
    ? addItem(text, document, path, name)
    : removeItem(text, document, path, name);
  if (spliced !== undefined && sameData(spliced, expected)) return { changed, text: spliced };
  return { changed, text: expected.toString({ flowCollectionPadding: false }) };
}

function addItem(
  text: string,
  document: Document,
  path: ListPath,
  name: string,
): string | undefined {
  const item = stringify(name).trimEnd();
  const list = document.getIn(path, true) as Node | undefined;
  if (isSeq(list) && list.range) {
    const items = list.items as Node[];
    if (list.flow) {
      // `[a, b]` → `[a, b, c]`, each item as it was written.
      const [start, end] = list.range;
      if (/[#\n]/.test(text.slice(start, end))) return undefined;
      const parts = items.map((node) =>
        node.range ? text.slice(node.range[0], node.range[1]) : '',
      );
      return `${text.slice(0, start)}[${[...parts, item].join(', ')}]${text.slice(end)}`;
    }
    const last = items.at(-1);
    if (!last?.range) return undefined;
    const prefix = text.slice(lineStart(text, last.range[0]), last.range[0]);
    if (!/^\s*-\s+$/.test(prefix)) return undefined;
    return insertLine(text, lineEnd(text, last.range[1]), `${prefix}${item}`);
  }
  if (list !== undefined) return undefined;
  const [sectionKey, listKey] = path;
  const section = document.get(sectionKey, true) as Node | undefined;
  if (section === undefined) {
    if (!isMap(document.contents) && document.contents !== null) return undefined;
    return `${withNewline(text)}${sectionKey}:\n  ${listKey}:\n    - ${item}\n`;
  }
  if (!isMap(section) || section.flow || !section.range) return undefined;
  const firstKey = section.items[0]?.key as Node | undefined;
  if (!firstKey?.range) return undefined;
  const indent = text.slice(lineStart(text, firstKey.range[0]), firstKey.range[0]);
  if (!/^ +$/.test(indent)) return undefined;
  return insertLine(
    text,
    lineEnd(text, section.range[2] - 1),
    `${indent}${listKey}:\n${indent}  - ${item}`,
  );
}

function removeItem(
  text: string,
  document: Document,
  path: ListPath,
  name: string,
): string | undefined {
  const list = document.getIn(path, true) as Node | undefined;
  if (!isSeq(list) || !list.range) return undefined;
  const items = list.items as Node[];
  const index = (list.toJSON() as unknown[]).indexOf(name);
  const node = items[index];
  if (!node?.range) return undefined;
  if (list.flow) {
    const [start, end] = list.range;
    if (/[#\n]/.test(text.slice(start, end))) return undefined;
    const parts = items
      .filter((_, i) => i !== index)
      .map((n) => (n.range ? text.slice(n.range[0], n.range[1]) : ''));
    return `${text.slice(0, start)}[${parts.join(', ')}]${text.slice(end)}`;
  }
  const from = lineStart(text, node.range[0]);
  if (!/^\s*-\s+$/.test(text.slice(from, node.range[0]))) return undefined;
  const rest = text.slice(lineEnd(text, node.range[1]));
  if (items.length > 1) return text.slice(0, from) + rest;
  // The last item: the list becomes `key: []`, on the key's line, before its comment.
  const keyEnd = keyOf(document, path)?.range?.[1];
  const colon = keyEnd === undefined ? -1 : text.indexOf(':', keyEnd);
  if (colon === -1 || colon > from) return undefined;
  return `${text.slice(0, colon + 1)} []${text.slice(colon + 1, from)}${rest}`;
}

/** The list's key in its section. */
function keyOf(document: Document, [sectionKey, listKey]: ListPath): Node | undefined {
  const section = document.get(sectionKey, true);
  if (!isMap(section)) return undefined;
  const pair = section.items.find((p) => isScalar(p.key) && p.key.value === listKey);
  return pair?.key as Node | undefined;
}

/** Whether `text` holds the same data as `expected`. */
function sameData(text: string, expected: Document): boolean {
  const document = parseDocument(text);
  return document.errors.length === 0 && isDeepStrictEqual(document.toJS(), expected.toJS());
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** Just after the line break that ends the line holding `at` (the end of a text without one). */
function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end === -1 ? text.length : end + 1;
}

function insertLine(text: string, at: number, line: string): string {
  const before = withNewline(text.slice(0, at));
  return `${before}${line}\n${text.slice(at)}`;
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Removes the key at `path` (`['plugins']`, `['plugins', 'enabled']`) and its value from a YAML
 * config, cutting only its lines when the key starts its line and the value ends one (the layout
 * an installer appends); otherwise the yaml library writes the document without it, keeping
 * comments. Unchanged when there is no such key. Throws on a text that does not parse.
 */
export function removeYamlKey(text: string, path: readonly string[]): string {
  const document = parseDocument(text);
  const problem = document.errors[0];
  if (problem) throw new Error(problem.message);
  if (!document.hasIn(path)) return text;
  const expected = document.clone();
  expected.deleteIn(path);
  const key = keyAt(document, path);
  const value = document.getIn(path, true) as Node | undefined;
  const from = key?.range ? lineStart(text, key.range[0]) : -1;
  const valueEnd = value?.range?.[1] ?? key?.range?.[1];
  if (from !== -1 && valueEnd !== undefined && /^\s*$/.test(text.slice(from, key?.range?.[0]))) {
    const to = text[valueEnd - 1] === '\n' ? valueEnd : lineEnd(text, valueEnd);
    const spliced = text.slice(0, from) + text.slice(to);
    // Nothing left is no setting at all, as the empty mapping the library would write says.
    const emptied = spliced.trim() === '' && isDeepStrictEqual(expected.toJS(), {});
    if (emptied || sameData(spliced, expected)) return spliced;
  }
  return expected.toString({ flowCollectionPadding: false });
}

/** The key node of the entry at `path`, at any depth of mappings. */
function keyAt(document: Document, path: readonly string[]): Node | undefined {
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path.at(-1));
  return pair?.key as Node | undefined;
}
