import type { RegisteredHandler } from '../chain/handler.js';
import { FRAMEWORK_NAME } from '../chain/outcome.js';
import type { Diagnostic, DiagnosticCode, ExtensionInfo } from '../extensions/types.js';
import { block } from '../hooks/results.js';
import type { Logger } from '../log/logger.js';

/** An extension that should be running and is not: it failed to load, or could not be found. */
export interface LoadFailure {
  /** Absent when a configured path or package was not found, so no name is known. */
  extension?: string;
  file?: string;
  reason: string;
  /** What went wrong, as the failure's diagnostic says it. */
  code: DiagnosticCode;
}

/** Longest failure reason quoted in a block message; `hermes extensions doctor` has all of it. */
const MAX_REASON = 400;

/**
 * The enabled extensions that failed (status `error`: import, default export, config schema,
 * setup), and the error-severity problems discovery found (a configured path or package that
 * does not exist). Disabled, shadowed and untrusted extensions are not failures: nobody asked
 * for them to run.
 */
export function findLoadFailures(
  extensions: readonly ExtensionInfo[],
  discoveryProblems: readonly Diagnostic[],
): LoadFailure[] {
  const failures: LoadFailure[] = [];
  for (const info of extensions) {
    if (info.status !== 'error') continue;
    failures.push({
      extension: info.name,
      ...(info.path === undefined ? {} : { file: info.path }),
      reason: info.reason ?? 'could not be loaded',
      code: info.code ?? 'LOAD_FAILED',
    });
  }
  for (const problem of discoveryProblems) {
    if (problem.severity !== 'error') continue;
    failures.push({
      ...(problem.extension === undefined ? {} : { extension: problem.extension }),
      ...(problem.file === undefined ? {} : { file: problem.file }),
      reason: problem.message,
      code: problem.code,
    });
  }
  return failures;
}

/** Failures named in one message at most; the rest are counted. */
const MAX_NAMED = 3;

/** One line: each failure's extension, file and what went wrong (the first few, then a count). */
export function describeLoadFailures(failures: readonly LoadFailure[]): string {
  const more = failures.length - MAX_NAMED;
  const named = failures
    .slice(0, MAX_NAMED)
    .map(({ extension, file, reason }) => {
      const short = oneLine(reason);
      const where = file === undefined ? '' : ` (${file})`;
      return extension === undefined
        ? `${short}${where}`
        : `extension "${extension}"${where} failed to load: ${short}`;
    })
    .join('; ');
  return more > 0 ? `${named}; and ${more} more` : named;
}

/**
 * A handler that refuses every tool call while an enabled extension is broken
 * (`on_load_error: block`), placed first in the tool chain so no other handler runs. It is a
 * handler like any other, so every host that runs `intercept_tool_call` — the reference loop, the
 * AI SDK adapter, the bridge, the command hooks — refuses the call with the same message, and a
 * host that asks `hasHook` first still sees that the chain has something to say.
 */
export function loadFailureGuard(failures: readonly LoadFailure[], log: Logger): RegisteredHandler {
  const first = failures[0] as LoadFailure;
  const name = first.extension ?? FRAMEWORK_NAME;
  const fixes = [
    'fix it (`hermes extensions doctor` shows the whole error)',
    ...(first.extension === undefined
      ? ['or correct extensions.paths']
      : [`or turn it off with \`hermes extensions disable ${first.extension}\``]),
    'or set extensions.on_load_error: warn to let tool calls run without it',
  ];
  const refusal = block(
    `Blocked: ${describeLoadFailures(failures)}. Tool calls are refused while an enabled extension is not running (extensions.on_load_error: block); ${fixes.join(', ')}.`,
  );
  return {
    extension: name,
    hook: 'intercept_tool_call',
    fn: () => refusal,
    priority: Number.NEGATIVE_INFINITY,
    timeoutMs: Number.POSITIVE_INFINITY,
    onError: 'block',
    tools: undefined,
    when: undefined,
    phase: 'mutate',
    log,
    loggedErrors: new Set(),
  };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON - 3)}...` : flat;
}
