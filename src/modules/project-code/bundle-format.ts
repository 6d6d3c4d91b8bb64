import { REGISTRY } from './framework.js';
import { RESTRICTED_IMPORT, RESTRICTED_RESOLVE } from './restricted-names.js';
import { usableRolldown } from './rolldown-peer.js';

/** The first line of a bundle: the framework modules to load before it runs (run.ts reads it). */
const HEADER = '// hermes-framework: ';

export function header(framework: string[]): string {
  return `${HEADER}${JSON.stringify(framework)}`;
}

/** The framework modules a bundle names in its first line. */
export function frameworkOf(code: string): string[] {
  const end = code.indexOf('\n');
  const first = end === -1 ? code : code.slice(0, end);
  if (!first.startsWith(HEADER))
    throw new Error('not a project bundle (its first line is not the framework list)');
  const list = JSON.parse(first.slice(HEADER.length)) as unknown;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
    throw new Error('not a project bundle (its framework list is not a list of names)');
  }
  return list;
}

/**
 * The bundle's own scope, before its modules: the `require` its CommonJS modules call, the
 * `import()` and `import.meta.resolve` its rewritten modules call (rewrite.ts), all of them
 * limited to Node's built-in modules and the framework.
 */
export function banner(entry: string): string {
  const name = JSON.stringify(entry);
  return [
    `const __hermes = globalThis[Symbol.for(${JSON.stringify(REGISTRY.description)})];`,
    `const require = __hermes.require(${name});`,
    `const ${RESTRICTED_IMPORT} = __hermes.importer(${name});`,
    `const ${RESTRICTED_RESOLVE} = __hermes.resolve;`,
  ].join('\n');
}

/**
 * What makes two bundles of the same files differ: the bundler, and this format. Throws a
 * RolldownUnavailable when rolldown is missing (or another version): no kept bundle is run then.
 */
export function bundlerVersion(): string {
  return `rolldown ${usableRolldown()}, format 1`;
}
