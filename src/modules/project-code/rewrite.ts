import type { parseAst } from 'rolldown/parseAst';
import { RESTRICTED_IMPORT, RESTRICTED_RESOLVE } from './restricted-names.js';

export interface Rewritten {
  code: string;
  /** Whether the module imports a name computed when it runs (now refused unless built-in). */
  computedImport: boolean;
}

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/**
 * One module's source, rewritten so that it behaves inside the bundle as it did on disk, and so
 * that it cannot load anything past the bundle:
 * - `import.meta` becomes an object of the module's own file (`url`, `dirname`, `filename`) — in
 *   the bundle, evaluated from a `data:` URL, it would describe the bundle; `import.meta.resolve`
 *   resolves only built-in modules and the framework.
 * - `__dirname` and `__filename` are declared for the module unless it declares them itself (an
 *   ES module has neither; a CommonJS one had them from Node's wrapper).
 * - `import(x)` of a name computed when it runs calls the bundle's restricted import instead: a
 *   literal name is bundled (so it was read and checked like every other input), a computed one
 *   can be a built-in module or the framework, nothing on disk.
 * Parsing, not running; offsets are of the source as given (UTF-16, as JavaScript indexes it).
 * `parse` is rolldown's parser, which the caller loads with rolldown (bundle.ts): imported here,
 * every process that only loads bundles made before would load its native binding at start.
 */
export function rewriteModule(
  source: string,
  file: string,
  lang: 'js' | 'ts' | 'jsx' | 'tsx',
  parse: typeof parseAst,
): Rewritten {
  const program = parse(
    source,
    { lang, sourceType: 'unambiguous' } as never,
    file,
  ) as unknown as Node;
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let computedImport = false;
  let usesDirname = false;
  const url = `file://${encodeURI(file).replace(/[?#]/g, encodeURIComponent)}`;
  const meta = `({ url: ${JSON.stringify(url)}, dirname: ${JSON.stringify(dirnameOf(file))}, filename: ${JSON.stringify(file)}, resolve: ${RESTRICTED_RESOLVE} })`;
  walk(program, (node) => {
    if (node.type === 'MetaProperty' && (node.meta as Node | undefined)?.name === 'import') {
      edits.push({ start: node.start, end: node.end, text: meta });
    } else if (node.type === 'ImportExpression' && !isLiteralName(node.source as Node)) {
      computedImport = true;
      // `import` is a keyword, not a callee: only the keyword is replaced, the arguments stay.
      edits.push({ start: node.start, end: node.start + 'import'.length, text: RESTRICTED_IMPORT });
    } else if (
      node.type === 'Identifier' &&
      (node.name === '__dirname' || node.name === '__filename')
    ) {
      usesDirname = true;
    }
  });
  let code = applyEdits(source, edits);
  if (usesDirname) {
    const declared = topLevelNames(program);
    const lines = [
      declared.has('__dirname') ? '' : `var __dirname = ${JSON.stringify(dirnameOf(file))};`,
      declared.has('__filename') ? '' : `var __filename = ${JSON.stringify(file)};`,
    ].join(' ');
    code = prepend(code, lines);
  }
  return { code, computedImport };
}

function dirnameOf(file: string): string {
  const at = file.lastIndexOf('/');
  return at <= 0 ? '/' : file.slice(0, at);
}

/** A string, or a template without expressions: the bundler follows these. */
function isLiteralName(node: Node | undefined): boolean {
  if (node?.type === 'Literal') return typeof node.value === 'string';
  if (node?.type === 'TemplateLiteral') return (node.expressions as unknown[]).length === 0;
  return false;
}

/** Names the module declares at its top level (where a `var __dirname` would clash). */
function topLevelNames(program: Node): Set<string> {
  const names = new Set<string>();
  const add = (pattern: Node | null | undefined) => {
    if (pattern?.type === 'Identifier') names.add(pattern.name as string);
  };
  for (const statement of program.body as Node[]) {
    const declaration =
      statement.type === 'ExportNamedDeclaration'
        ? (statement.declaration as Node | null)
        : statement;
    if (declaration?.type === 'VariableDeclaration') {
      for (const d of declaration.declarations as Node[]) add(d.id as Node);
    } else if (
      declaration?.type === 'FunctionDeclaration' ||
      declaration?.type === 'ClassDeclaration'
    ) {
      add(declaration.id as Node);
    } else if (statement.type === 'ImportDeclaration') {
      for (const s of statement.specifiers as Node[]) add(s.local as Node);
    }
  }
  return names;
}

/** After a `#!` line, which must stay first; before everything else (directives included). */
function prepend(code: string, text: string): string {
  if (!code.startsWith('#!')) return `${text}\n${code}`;
  const end = code.indexOf('\n');
  return end === -1
    ? `${code}\n${text}`
    : `${code.slice(0, end + 1)}${text}\n${code.slice(end + 1)}`;
}

function applyEdits(
  source: string,
  edits: Array<{ start: number; end: number; text: string }>,
): string {
  let code = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    code = code.slice(0, edit.start) + edit.text + code.slice(edit.end);
  }
  return code;
}

function walk(root: Node, visit: (node: Node) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const node = value as Node;
    if (typeof node.type === 'string') visit(node);
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}
