/**
 * How jiti finds the relative imports of a TypeScript extension. Written as TypeScript's module
 * resolution wants them (`import { x } from './helper.js'` for `helper.ts`), each one costs jiti
 * about two hundred failed looks before it tries `.ts` last: every base it knows, every extension,
 * with and without `/index`, under each set of conditions — an error object and a `stat` apiece,
 * each of which the daemon's read recorder writes down (about 4,300 for the two shipped guards
 * given by path, over 100 ms of a runtime's load: BENCHMARKS.md, "jiti's relative imports").
 *
 * So the babel plugin below, run by jiti's own transform, writes a relative specifier ending in
 * `.js` without it (`./helper`), and RESOLVE_ORDER has jiti try `.js` first and `.ts` next: a
 * JavaScript file of that name is still what loads, else the TypeScript one, found at the second
 * look. What is decided stays jiti's and is made at each load, never kept in the transpile cache
 * (whose entries are kept by the source's hash alone). Where the two differ: an import that jiti
 * would not have found (`./x.js` with only `x.mjs` or `x/index.ts` there) loads that file, and an
 * extensionless import finds `x.ts` before `x.mjs` and `x.cjs`.
 */

/** The extensions jiti tries, in order: its own list, with `.ts` moved up after `.js`. */
export const RESOLVE_ORDER = [
  '.js',
  '.ts',
  '.mjs',
  '.cjs',
  '.tsx',
  '.mts',
  '.cts',
  '.mtsx',
  '.ctsx',
];

const RELATIVE_JS = /^\.\.?\/.*\.js$/;

interface Literal {
  type: string;
  value?: unknown;
}

/** A string literal that names a relative `.js` file, made extensionless in place. */
function extensionless(source: Literal | null | undefined): void {
  if (source?.type === 'StringLiteral' && typeof source.value === 'string') {
    if (RELATIVE_JS.test(source.value)) source.value = source.value.slice(0, -3);
  }
}

type WithSource = { node: { source?: Literal | null } };

/**
 * The babel plugin (jiti's `transformOptions.babel.plugins`): the sources of `import`,
 * `export … from`, `export * from` and `import('…')` with a literal, nothing else.
 */
export function extensionlessImports() {
  const declaration = (path: WithSource) => extensionless(path.node.source);
  return {
    name: 'hermes-extensionless-imports',
    visitor: {
      ImportDeclaration: declaration,
      ExportNamedDeclaration: declaration,
      ExportAllDeclaration: declaration,
      CallExpression(path: { node: { callee: { type: string }; arguments: Literal[] } }) {
        if (path.node.callee.type === 'Import') extensionless(path.node.arguments[0]);
      },
    },
  };
}
