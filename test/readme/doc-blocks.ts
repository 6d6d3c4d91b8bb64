import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The pages of the docs, relative to the root: README.md, CONTRIBUTING.md, BENCHMARKS.md, every
 * `docs/*.md` and the README.md of `extensions/` and of each folder in it.
 */
export function docPages(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const extensions = readdirSync(join(root, 'extensions'))
    .filter((name) => statSync(join(root, 'extensions', name)).isDirectory())
    .map((name) => `extensions/${name}/README.md`)
    .filter((page) => exists(page));
  return [
    'README.md',
    'CONTRIBUTING.md',
    'BENCHMARKS.md',
    'extensions/README.md',
    ...docs,
    ...extensions,
  ]
    .filter((page) => exists(page))
    .sort();
}

function exists(page: string): boolean {
  try {
    return statSync(join(root, page)).isFile();
  } catch {
    return false;
  }
}

/** One fenced code block of a page, with the HTML comment that says how it is checked. */
export interface DocBlock {
  page: string;
  /** The line of its opening fence, from 1. */
  line: number;
  /** The info string's first word (`ts`, `console`, …), or '' for none. */
  lang: string;
  /** Its text, without the fences and without the indentation of a list item. */
  text: string;
  /**
   * The comment on the line before the fence (blank lines between allowed), without `<!--` and
   * `-->`: `example: NAME …`, `check: KIND`, `illustrative: WHY`; undefined when there is none.
   */
  marker: string | undefined;
}

/** Every fenced block of a page (``` or ~~~ fences, as CommonMark reads them, list items too). */
export function docBlocks(page: string): DocBlock[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let at = 0; at < lines.length; at++) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[at] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    const body: string[] = [];
    let end = at + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] ?? '';
      const close = /^ *(`{3,}|~{3,})\s*$/.exec(line);
      if (close?.[1] && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    let before = at - 1;
    while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
    const comment = /^\s*<!--\s*([\s\S]*?)\s*-->\s*$/.exec(lines[before] ?? '');
    blocks.push({
      page,
      line: at + 1,
      lang,
      text: body.length > 0 ? `${body.join('\n')}\n` : '',
      marker: comment?.[1],
    });
    at = end;
  }
  return blocks;
}

/** Every fenced block of every page. */
export function allDocBlocks(): DocBlock[] {
  return docPages().flatMap(docBlocks);
}

/** The name of an `example:` marker (`example: when (run by …)` is `when`). */
export function exampleName(block: DocBlock): string | undefined {
  return /^example:\s*([\w-]+)/.exec(block.marker ?? '')?.[1];
}

/**
 * The block marked `<!-- example: NAME … -->`, from whichever page holds it. Throws when no page
 * or more than one does, so a test of a renamed or dropped example fails instead of checking
 * nothing.
 */
export function docExample(name: string): DocBlock {
  const found = allDocBlocks().filter((block) => exampleName(block) === name);
  if (found.length === 0) throw new Error(`no page has a block marked "<!-- example: ${name}"`);
  if (found.length > 1) {
    throw new Error(
      `"example: ${name}" marks ${found.length} blocks: ${found.map((b) => `${b.page}:${b.line}`).join(', ')}`,
    );
  }
  return found[0] as DocBlock;
}

/**
 * Writes `source` as `file` where examples are checked: inside the repository, so the project's
 * tsconfig (strict, its `paths`) and its packages apply as they do for the tests. Returns the path.
 */
export function writeExample(file: string, source: string): string {
  const dir = join(root, 'node_modules', '.cache', 'readme-examples');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, source);
  return path;
}

let options: ts.CompilerOptions | undefined;
let previous: ts.Program | undefined;

/**
 * The type errors of several files at once, by file: one program for all of them, which costs
 * about what one file costs (the framework's own types are most of the work).
 */
export function typeErrorsOf(paths: readonly string[]): Map<string, string[]> {
  options ??= projectOptions();
  // The last program is reused: only the examples change between checks.
  previous = ts.createProgram([...paths], options, undefined, previous);
  const errors = new Map(paths.map((path) => [path, [] as string[]]));
  for (const d of ts.getPreEmitDiagnostics(previous)) {
    const list = d.file && errors.get(d.file.fileName);
    if (list) list.push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return errors;
}

function projectOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  return config.options;
}
