import type { DocBlock } from './doc-blocks.js';

/** One `$ command` of a console block and the lines the README shows it printing. */
interface Step {
  command: string;
  expected: string[];
}

/** The steps of a console block: `$ ` starts a command, the lines after it are its output. */
export function consoleSteps(block: DocBlock): Step[] {
  if (block.lang !== 'console')
    throw new Error(`${block.page}:${block.line} is not a console block`);
  const steps: Step[] = [];
  for (const line of block.text.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
    else steps.at(-1)?.expected.push(line);
  }
  if (steps.length === 0) throw new Error(`${block.page}:${block.line} has no "$ " command`);
  return steps;
}

/**
 * Why `actual` is not what the README shows, or undefined when it is. Blank lines and the
 * spaces around a line do not count; a line `…` stands for any lines (none included), and `…`
 * inside a line for any text. A line ending in `[y/N] y` is a question the user answered: the
 * test answers it with `--yes`, so it is not printed. Without a `…` at the end, nothing may follow.
 */
export function transcriptMismatch(expected: string[], actual: string): string | undefined {
  const want = expected.map((l) => l.trim()).filter((l) => l !== '' && !l.endsWith('[y/N] y'));
  const got = actual
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const matches = (pattern: string, line: string) =>
    new RegExp(`^${pattern.split('…').map(escapeRegExp).join('.*')}$`).test(line);
  let at = 0;
  let gap = false;
  for (const line of want) {
    if (line === '…') {
      gap = true;
      continue;
    }
    let found = at;
    while (found < got.length && !matches(line, got[found] as string) && gap) found++;
    if (found >= got.length || !matches(line, got[found] as string)) {
      return `expected ${JSON.stringify(line)} ${gap ? 'after' : 'at'} line ${at + 1} of:\n${got.join('\n')}`;
    }
    at = found + 1;
    gap = false;
  }
  if (!gap && at < got.length) return `more output than shown, from ${JSON.stringify(got[at])}`;
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
