/**
 * Rows as columns padded to their widest cell; the last column is not padded. A cell may hold
 * several lines (`\n`): the row then takes as many lines, each in its column.
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  return tableRows(rows).flat();
}

/** `table`, the lines of each row apart. */
export function tableRows(rows: readonly (readonly string[])[]): string[][] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      for (const line of cell.split('\n')) {
        widths[i] = Math.max(widths[i] ?? 0, visibleLength(line));
      }
    });
  }
  return rows.map((row) => {
    const cells = row.map((cell) => cell.split('\n'));
    const height = Math.max(...cells.map((lines) => lines.length));
    return Array.from({ length: height }, (_, line) =>
      cells
        .map((lines, i) => {
          const text = lines[line] ?? '';
          return i === row.length - 1
            ? text
            : text + ' '.repeat((widths[i] ?? 0) - visibleLength(text));
        })
        .join(SEPARATOR)
        .trimEnd(),
    );
  });
}

/** What stands between two columns. */
export const SEPARATOR = '  ';

/** The width of each column, widest cell, as `table` lays them out. */
export function columnWidths(rows: readonly (readonly string[])[]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return widths;
}

/**
 * `text` in lines of at most `width` characters, broken at spaces; a word longer than a line is
 * cut, after a `,` `:` `@` `[` `/` where one is in its second half (no text is lost). Runs of white space, line breaks included, count as one space.
 */
export function wrapText(text: string, width: number): string[] {
  const room = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    if (line !== '' && line.length + 1 + rest.length <= room) {
      line += ` ${rest}`;
      continue;
    }
    if (line !== '') lines.push(line);
    while (rest.length > room) {
      const cut = cutPoint(rest, room);
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * `wrapText` for each line of `text` apart: a line break in it is kept, and a line's indent too,
 * with two more spaces on the lines it wraps onto, so an indented item stays one item.
 */
export function wrapLines(text: string, width: number): string[] {
  return text.split('\n').flatMap((line) => {
    const indent = /^ */.exec(line)?.[0] ?? '';
    if (indent === '') return wrapText(line, width);
    const [first = '', ...rest] = wrapText(line, width - indent.length - 2);
    return [indent + first, ...rest.map((l) => `${indent}  ${l}`)];
  });
}

function cutPoint(word: string, room: number): number {
  const head = word.slice(0, room);
  const at = Math.max(...[',', ':', '@', '[', '/'].map((mark) => head.lastIndexOf(mark)));
  return at + 1 >= room / 2 ? at + 1 : room;
}

export function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes take no room
  return text.replace(/\u001b\[\d+m/g, '').length;
}
