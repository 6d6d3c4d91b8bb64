import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Jiti } from 'jiti';

/** What a module names to load: its static and literal dynamic import specifiers. */
export interface ModuleImports {
  specifiers: string[];
  /** `import(x)` or `require(x)` with a name computed at run time: cannot be followed. */
  computed: boolean;
}

let scanner: Jiti | undefined;

/**
 * The import specifiers of a JavaScript or TypeScript module, found by parsing it with the same
 * Babel that jiti loads it with (a Babel plugin that only looks), so what is listed is what jiti
 * will ask for: `import`/`export ... from`, `import x = require()`, and `import()`/`require()` of a
 * string. Type-only imports are left out: they are erased and never load. A name that is only
 * known at run time is flagged; loading refuses whatever it reaches that was not trusted.
 */
export function scanImports(file: string): ModuleImports {
  const found: ModuleImports = { specifiers: [], computed: false };
  const literal = (node: { type: string; value?: unknown } | undefined) => {
    if (node?.type === 'StringLiteral' && typeof node.value === 'string') {
      found.specifiers.push(node.value);
    } else if (node?.type === 'TemplateLiteral' && isPlainTemplate(node)) {
      found.specifiers.push(String((node as unknown as Template).quasis[0]?.value.cooked));
    } else {
      found.computed = true;
    }
  };
  const visit = (node: BabelNode) => {
    switch (node.type) {
      case 'ImportDeclaration':
        if (node.importKind !== 'type') literal(node.source);
        break;
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
        if (node.source && node.exportKind !== 'type') literal(node.source);
        break;
      case 'TSImportEqualsDeclaration':
        if (
          node.importKind !== 'type' &&
          node.moduleReference?.type === 'TSExternalModuleReference'
        )
          literal(node.moduleReference.expression);
        break;
      case 'ImportExpression':
        literal(node.source);
        break;
      case 'CallExpression': {
        const callee = node.callee;
        // Any `require(...)`, shadowed or not: listing one file too many is harmless.
        if (
          callee?.type === 'Import' ||
          (callee?.type === 'Identifier' && callee.name === 'require')
        )
          literal(node.arguments?.[0]);
        break;
      }
    }
  };
  // The parsed tree as written, walked before any plugin changes it (TypeScript's drops imports
  // it thinks unused; the module transform rewrites the rest).
  const collector = { pre: (file: { ast: unknown }) => walk(file.ast, visit) };
  scanner ??= createScanner();
  // Parsing, not running: the transformed code is thrown away.
  scanner.transform({
    source: readFileSync(file, 'utf8'),
    filename: file,
    ts: /\.[cm]?tsx?$/.test(file),
    babel: { plugins: [collector] },
  });
  return found;
}

/** A jiti with no disk cache: a cached transform would skip the plugin that collects imports. */
function createScanner(): Jiti {
  const { createJiti } = createRequire(import.meta.url)('jiti') as typeof import('jiti');
  return createJiti(import.meta.url, { fsCache: false, moduleCache: false });
}

interface Template {
  expressions: unknown[];
  quasis: Array<{ value: { cooked?: string } }>;
}

function isPlainTemplate(node: unknown): boolean {
  return (node as Template).expressions.length === 0;
}

interface BabelNode {
  type: string;
  value?: unknown;
  name?: string;
  importKind?: string;
  exportKind?: string;
  source?: BabelNode;
  expression?: BabelNode;
  moduleReference?: BabelNode;
  callee?: BabelNode;
  arguments?: BabelNode[];
}

function walk(root: unknown, visit: (node: BabelNode) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    const node = value as BabelNode & Record<string, unknown>;
    if (typeof node.type === 'string') visit(node);
    for (const [key, child] of Object.entries(node)) {
      if (key === 'loc' || key === 'extra' || key.endsWith('Comments')) continue;
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}
