import type { RegisteredHandler } from '../chain/handler.js';
import { FRAMEWORK_NAME } from '../chain/outcome.js';
import { hermesCommand } from '../command-name.js';
import type { Diagnostic, DiagnosticCode, ExtensionInfo } from '../extensions/types.js';
import { block } from '../hooks/results.js';
import type { Logger } from '../log/logger.js';
import { indentedMessage } from '../log/message-lines.js';

/** An extension that should be running and is not: it failed to load, or could not be found. */
export interface LoadFailure {
  /** Absent when a configured path or package was not found, so no name is known. */
  extension?: string;
  file?: string;
  reason: string;
  /** What went wrong, as the failure's diagnostic says it. */
  code: DiagnosticCode;
}

/**
 * The longest line and the most lines of a failure's reason quoted in a block message;
 * `hermes extensions doctor` has all of it.
 */
const MAX_REASON = 400;
const MAX_REASON_LINES = 8;

/**
 * The enabled extensions that failed (status `error`: import, default export, config schema,
 * setup), and the error-severity problems discovery found (a configured path or package that
 * does not exist). Disabled, shadowed and untrusted extensions are not failures: nobody asked
 * for them to run; nor is one in shadow mode (`mode: shadow`), whose decisions would not apply.
 */
export function findLoadFailures(
  extensions: readonly ExtensionInfo[],
  discoveryProblems: readonly Diagnostic[],
): LoadFailure[] {
  const failures: LoadFailure[] = [];
  for (const info of extensions) {
    // In shadow mode nothing it decides applies, so its absence loosens nothing; its own error
    // still shows in list, doctor and the diagnostics.
    if (info.status !== 'error' || info.mode === 'shadow') continue;
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

/**
 * Each failure's extension, file and what went wrong (the first few, then a count): one line
 * when every reason is one line; else each failure starts a line, with its problems (a config
 * section's schema issues) indented under it, one a line (indentedMessage).
 */
export function describeLoadFailures(failures: readonly LoadFailure[]): string {
  const more = failures.length - MAX_NAMED;
  const named = failures.slice(0, MAX_NAMED).map(({ extension, file, reason }) => {
    const short = shortened(reason);
    const where = file === undefined ? '' : ` (${file})`;
    return extension === undefined
      ? `${short}${where}`
      : `extension "${extension}"${where} failed to load: ${short}`;
  });
  const all = named.join(named.some((text) => text.includes('\n')) ? ';\n' : '; ');
  return more > 0 ? `${all}; and ${more} more` : all;
}

/**
 * `what` (describeLoadFailures), then the sentence after it: after `separator` on the same line,
 * or on a line of its own when `what` ends in a list of problems.
 */
export function followedBy(what: string, separator: string, next: string): string {
  return `${what}${what.includes('\n') ? '\n' : separator}${next}`;
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
  // A project held at its trusted state that cannot be rebuilt: only a new trust mends it, and
  // on_load_error does not apply (load-runtime.ts).
  const held = failures.find((f) => f.code === 'TRUST_HELD');
  if (held !== undefined) {
    // Its reason whole: it names what is missing and the command that mends it.
    const others = failures.filter((f) => f !== held);
    const also = others.length > 0 ? `\nAlso: ${describeLoadFailures(others)}` : '';
    return refusingEvery(FRAMEWORK_NAME, block(`Blocked: ${held.reason}${also}`), log);
  }
  const fixes = [
    `fix it (\`${hermesCommand()} extensions doctor\` shows the whole error)`,
    ...(first.extension === undefined
      ? ['or correct extensions.paths']
      : [`or turn it off with \`${hermesCommand()} extensions disable ${first.extension}\``]),
    'or set extensions.on_load_error: warn to let tool calls run without it',
  ];
  const refusal = block(
    followedBy(
      `Blocked: ${describeLoadFailures(failures)}`,
      '. ',
      `Tool calls are refused while an enabled extension is not running (extensions.on_load_error: block); ${fixes.join(', ')}.`,
    ),
  );
  return refusingEvery(name, refusal, log);
}

function refusingEvery(
  name: string,
  refusal: ReturnType<typeof block>,
  log: Logger,
): RegisteredHandler {
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
    // The refusal of a broken guard is never shadowed: it is the framework's, not the extension's.
    shadow: false,
    log,
    loggedErrors: new Set(),
  };
}

function shortened(reason: string): string {
  return indentedMessage(reason, '  ', MAX_REASON_LINES)
    .split('\n')
    .map((line) => (line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 3)}...` : line))
    .join('\n');
}
