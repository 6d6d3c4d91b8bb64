import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hermesHome, projectBundleDir, transpileCacheDir } from '../config/locations.js';
import { type ExtensionDefinition, findDefinitionProblem } from '../extensions/define.js';
import { discoverPath } from '../extensions/discovery.js';
import { loadExtension } from '../extensions/load-extension.js';
import { moduleLoader } from '../modules/import-module.js';
import { nativeImport } from '../modules/native-import.js';
import { type GuardCase, type GuardTables, guardCases } from './guard-cases.js';
import { type GuardCaseResult, runGuardCase } from './run-guard-case.js';

/**
 * The extension under test: its `defineExtension(...)` value, or where it is on disk (a folder
 * with an entry, a single file, or a `file:` URL such as `new URL('./index.ts', import.meta.url)`),
 * loaded as `extensions.paths` would load it.
 */
// biome-ignore lint/suspicious/noExplicitAny: each extension has its own config type
export type GuardUnderTest = ExtensionDefinition<any> | string | URL;

/** The test functions `testGuard` registers with: vitest's, or another runner's of the same shape. */
export interface TestFunctions {
  describe: (name: string, body: () => void) => unknown;
  it: (name: string, body: () => Promise<void>) => unknown;
}

/**
 * Runs every case of the tables through a real runtime and returns what each did, for any runner
 * (or none): `results.filter((r) => !r.ok).map((r) => r.failure)` says what did not hold.
 */
export async function runGuardCases(
  extension: GuardUnderTest,
  tables: GuardTables,
): Promise<GuardCaseResult[]> {
  const cases = guardCases(tables);
  const definition = await loadGuard(extension);
  const results: GuardCaseResult[] = [];
  for (const [index, guardCase] of cases.entries()) {
    results.push(await runGuardCase(definition, tables, guardCase, sessionFor(index)));
  }
  return results;
}

/**
 * The guard tester, in the spirit of ESLint's `RuleTester`: one test per case, named after it
 * (`intercept_tool_call › block › write {"path":"src/a.ts"}`), in a `describe` block named after
 * the extension; a case that does not hold fails with which case, what was expected and what the
 * chain did (the outcome, the extension that decided, its message, each handler that ran).
 *
 * `describe` and `it` are vitest's unless given (another runner's, or vitest's imported by the
 * test file itself): vitest is imported only when this runs, so importing
 * `hermes-extensions/testing` elsewhere needs no vitest. Await it (a test file may `await` at its
 * top level); with `describe` and `it` given, the tests are registered before it returns.
 */
export async function testGuard(
  extension: GuardUnderTest,
  tables: GuardTables,
  functions?: TestFunctions,
): Promise<void> {
  const { describe, it } = functions ?? (await importVitest());
  const cases = guardCases(tables);
  let loading: Promise<ExtensionDefinition<unknown>> | undefined;
  const definition = () => {
    loading ??= loadGuard(extension);
    return loading;
  };
  describe(suiteName(extension), () => {
    for (const [index, guardCase] of cases.entries()) {
      it(guardCase.name, async () => {
        const result = await runGuardCase(await definition(), tables, guardCase, sessionFor(index));
        if (!result.ok) throw new GuardCaseFailure(result);
      });
    }
  });
}

/** A case that did not hold; its message is the case's failure text. */
export class GuardCaseFailure extends Error {
  readonly result: GuardCaseResult;
  constructor(result: GuardCaseResult) {
    super(result.failure);
    this.name = 'GuardCaseFailure';
    this.result = result;
  }
}

/** Each case its own session, so no state can leak from one case's turn into another's. */
function sessionFor(index: number): string {
  return `guard-tester-${index + 1}`;
}

function suiteName(extension: GuardUnderTest): string {
  if (typeof extension === 'string') return basename(extension);
  if (extension instanceof URL) return basename(fileURLToPath(extension));
  return typeof extension?.name === 'string' ? extension.name : 'extension';
}

/** The definition, loaded from disk when a place was given (with the loader hosts use). */
async function loadGuard(extension: GuardUnderTest): Promise<ExtensionDefinition<unknown>> {
  if (typeof extension !== 'string' && !(extension instanceof URL)) {
    const problem = findDefinitionProblem(extension);
    if (problem) throw new TypeError(`testGuard: the extension is not one: ${problem}`);
    return extension;
  }
  const place = extension instanceof URL ? fileURLToPath(extension) : resolve(extension);
  const { found, problems } = discoverPath({ spec: place, base: process.cwd(), file: place });
  const [first] = found;
  if (first === undefined || found.length > 1) {
    const why =
      problems.map((p) => p.message).join('; ') || `${place} holds ${found.length} extensions`;
    throw new Error(`testGuard: no single extension at ${place}: ${why}`);
  }
  const home = hermesHome();
  const loader = moduleLoader(transpileCacheDir(home), projectBundleDir(home));
  const candidate = await loadExtension(first, loader);
  if (candidate.definition === undefined) {
    throw new Error(`testGuard: ${candidate.loadError?.message ?? `could not load ${place}`}`);
  }
  return candidate.definition;
}

async function importVitest(): Promise<TestFunctions> {
  // A computed specifier: a bundler that carries this module (the command line's) must not try to
  // carry vitest with it.
  const specifier = 'vitest';
  try {
    return (await nativeImport(specifier)) as TestFunctions;
  } catch (error) {
    throw new Error(
      `testGuard registers vitest tests, and vitest could not be imported (${error instanceof Error ? error.message : String(error)}). Install it (npm i -D vitest), pass { describe, it } of your runner as the third argument, or use runGuardCases, which returns the results.`,
    );
  }
}

export type { GuardCase, GuardCaseResult };
