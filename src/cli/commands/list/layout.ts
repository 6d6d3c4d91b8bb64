import { columnWidths, SEPARATOR, tableRows, visibleLength, wrapLines } from '../../table.js';
import { type HookLabel, labelText, wrapHooks } from './hook-labels.js';

/** One extension as `list` shows it. */
export interface ListRow {
  /** Name, status, source, version: short, never wrapped. */
  cells: readonly [string, string, string, string];
  /** Each handler with its priority and matchers: wrapped never inside a tool group. */
  hooks: readonly HookLabel[];
  /**
   * The description, or why the extension is not running: each of its lines starts a line (a
   * reason's problems, one a line, indented under its first line).
   */
  about: string;
}

const HEAD = ['NAME', 'STATUS', 'SOURCE', 'VERSION'] as const;
/** Narrower than this, a description column wraps too often to read: it goes under its row. */
const MIN_ABOUT = 30;
const INDENT = '    ';

/**
 * The table in at most `width` columns (docs/cli.md): on one line per extension
 * when it fits; else with hooks and descriptions wrapped in their columns; else, when even that
 * leaves a description too little room, each description on the lines under its row.
 */
export function layOut(rows: readonly ListRow[], width: number): string[] {
  const fixed = columnWidths([HEAD, ...rows.map((r) => r.cells)]);
  const beforeHooks = fixed.reduce((sum, w) => sum + w + SEPARATOR.length, 0);
  const hooksOf = (row: ListRow) =>
    row.hooks.length > 0 ? row.hooks.map(labelText).join(' ') : '-';
  const hooksNatural = widest(['HOOKS', ...rows.map(hooksOf)]);
  const aboutNatural = widest(['DESCRIPTION', ...rows.map((r) => r.about)]);
  const room = width - beforeHooks - SEPARATOR.length;
  if (hooksNatural + aboutNatural <= room) {
    return lines(rows.map((r) => [...r.cells, hooksOf(r), r.about]));
  }
  const longestHook = widest(['HOOKS', ...rows.flatMap((r) => r.hooks.map(labelText))]);
  const hooksWidth = Math.min(hooksNatural, Math.max(longestHook, room - aboutNatural));
  if (room - hooksWidth >= Math.min(MIN_ABOUT, aboutNatural)) {
    return lines(
      rows.map((r) => [
        ...r.cells,
        wrapHooks(r.hooks, hooksWidth).join('\n'),
        wrapLines(r.about, room - hooksWidth).join('\n'),
      ]),
    );
  }
  const head = [...HEAD, 'HOOKS'];
  const body = rows.map((r) => [...r.cells, wrapHooks(r.hooks, width - beforeHooks).join('\n')]);
  const [header = [], ...grouped] = tableRows([head, ...body]);
  return [
    ...header,
    ...grouped.flatMap((rowLines, i) => {
      const about = rows[i]?.about ?? '';
      if (about === '') return rowLines;
      return [...rowLines, ...wrapLines(about, width - INDENT.length).map((l) => INDENT + l)];
    }),
  ];
}

function lines(rows: string[][]): string[] {
  return tableRows([[...HEAD, 'HOOKS', 'DESCRIPTION'], ...rows]).flat();
}

/** The widest line of any of `texts`. */
function widest(texts: readonly string[]): number {
  return Math.max(...texts.flatMap((text) => text.split('\n')).map(visibleLength));
}
