import { wrapText } from '../../table.js';

/**
 * One handler as `list` shows it: `hook@priority:phase`, its tool matcher, whether it has `when`,
 * and the extensions it runs before or after (docs/chain-semantics.md, Order by name).
 */
export interface HookLabel {
  /** `intercept_tool_call@100:validate`. */
  head: string;
  tools?: readonly string[];
  /** The tools are the known names a pattern matches (tool-patterns.ts): shown as `~[…]`. */
  matched?: boolean;
  when: boolean;
  before?: readonly string[];
  after?: readonly string[];
}

/** The most tools a group names before it counts the rest (`+2`); `--json` has them all. */
const MAX_TOOLS = 4;
/** A longer tool name (a regular expression's source) is cut to this, ending in `…`. */
const MAX_TOOL_NAME = 16;

/** The label on one line: `intercept_tool_call@100:validate[write,edit,patch,+2](when)(after:audit)`. */
export function labelText(label: HookLabel): string {
  return labelPieces(label, Number.POSITIVE_INFINITY).join('');
}

/**
 * The handlers' labels in lines of at most `width` columns, broken between labels or between a
 * label's pieces (its head, its tool group, `(when)`), never inside a tool group: a group too
 * wide for a line names fewer tools and counts the rest (`[bash,+3]`, at the least `[+4]`). Only
 * a head or a group wider than a whole line even so is cut, so that nothing runs past the width.
 */
export function wrapHooks(labels: readonly HookLabel[], width: number): string[] {
  if (labels.length === 0) return ['-'];
  const lines: string[] = [];
  let line = '';
  for (const label of labels) {
    labelPieces(label, width).forEach((piece, i) => {
      const joined = line === '' ? piece : `${line}${i === 0 ? ' ' : ''}${piece}`;
      if (joined.length <= width) {
        line = joined;
        return;
      }
      if (line !== '') lines.push(line);
      const cut = wrapText(piece, width);
      lines.push(...cut.slice(0, -1));
      line = cut.at(-1) ?? '';
    });
  }
  if (line !== '') lines.push(line);
  return lines;
}

function labelPieces(label: HookLabel, width: number): string[] {
  return [
    label.head,
    ...(label.tools === undefined
      ? []
      : [`${label.matched ? '~' : ''}${toolGroup(label.tools, width - (label.matched ? 1 : 0))}`]),
    ...(label.when ? ['(when)'] : []),
    ...(label.before === undefined ? [] : [`(before:${label.before.join(',')})`]),
    ...(label.after === undefined ? [] : [`(after:${label.after.join(',')})`]),
  ];
}

/** `[a,b,c]`, or as many names as fit in `width` and a count of the others. */
function toolGroup(tools: readonly string[], width: number): string {
  const names = tools.map((tool) =>
    tool.length > MAX_TOOL_NAME ? `${tool.slice(0, MAX_TOOL_NAME - 1)}…` : tool,
  );
  for (let shown = tools.length <= MAX_TOOLS ? tools.length : MAX_TOOLS - 1; ; shown--) {
    const rest = tools.length - shown;
    const text = `[${[...names.slice(0, shown), ...(rest > 0 ? [`+${rest}`] : [])].join(',')}]`;
    if (text.length <= width || shown === 0) return text;
  }
}
