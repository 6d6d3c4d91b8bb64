import { match, P } from 'ts-pattern';
import type { ChainOutcome, ChainStep } from '../../chain/outcome.js';
import { hermesCommand } from '../../command-name.js';
import { assertHookName } from '../../extensions/hook-names.js';
import type { DiagnosticCode, ExtensionStatus } from '../../extensions/types.js';
import type { LlmRequest } from '../../hooks/before-llm-call.js';
import { declarationOf, type HookInput, type HookName } from '../../hooks/index.js';
import { readPayload } from '../../hooks/payload.js';
import { indentedMessage } from '../../log/message-lines.js';
import { runHook } from '../../runtime/run-hook.js';
import type { Runtime } from '../../runtime/runtime.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { cwdFlag } from '../cwd-flag.js';
import { CliError, type Io, paint } from '../io.js';

/**
 * `hermes extensions test HOOK --input JSON`: runs one chain on a payload in a throwaway turn and
 * shows each handler's decision, its time, what it changed (a diff), and the outcome: an ask (who
 * asked, why), and for before_llm_call the tools left and each restriction. Exit 0 when not
 * blocked (an ask included: it is a decision for a person, not a failure), 1 when blocked.
 */
export async function testCommand(
  context: CommandContext,
  hook: string,
  options: { input?: string; session?: string; json?: boolean },
  io: Io,
) {
  try {
    assertHookName(hook);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  const input = parseInput(hook, options.input);
  const { runtime } = await loadForCommand(context);
  const steps: ChainStep[] = [];
  const sessionId = options.session ?? `cli-test-${process.pid}`;
  let outcome: ChainOutcome<unknown>;
  try {
    outcome = await runtime.runTurn(
      // A trial, not the agent's call: no observer hears of it, the audit trail among them.
      { sessionId, trial: true, onTrace: (step) => void steps.push(step) },
      (turn) => runHook(turn, hook, input),
    );
  } finally {
    await runtime.close();
  }
  const notRunning = notTakingPart(runtime);
  // A chain that passed without an enabled extension that should have run proves nothing. An ask
  // is a decision the host puts to a person, not a failure of the chain.
  const code = outcome.blocked || runtime.loadFailures.length > 0 ? 1 : 0;
  if (options.json) {
    io.out(JSON.stringify({ outcome, notRunning }, null, 2));
    return code;
  }
  const { createTwoFilesPatch } = await import('diff');
  io.out(`${hook}: ${steps.length} handler(s) ran in a throwaway turn of session ${sessionId}`);
  let before = show(declarationOf(hook).unchanged(input));
  steps.forEach((step, i) => {
    const mark =
      step.action === 'pass'
        ? paint(io, 'dim', step.action)
        : paint(io, step.action === 'block' || step.error ? 'red' : 'yellow', step.action);
    io.out(`  ${i + 1}. ${step.extension}  ${mark}  ${step.durationMs.toFixed(2)} ms`);
    if (step.error) io.out(`       ${step.error}`);
    // In shadow mode the step passed: what it decided is said, so the guard can be judged.
    if (step.shadow) {
      const why = step.shadow.message === undefined ? '' : `: ${step.shadow.message}`;
      io.out(`       shadow mode: would ${step.shadow.action}${why} (not applied)`);
    }
    const after = show(step.value);
    if (after !== before) {
      const patch = createTwoFilesPatch('before', 'after', `${before}\n`, `${after}\n`, '', '', {
        context: 2,
      });
      const lines = patch.split('\n');
      const hunks = lines.slice(lines.findIndex((line) => line.startsWith('@@')));
      for (const line of hunks) if (line) io.out(`       ${line}`);
      before = after;
    }
  });
  io.out('');
  for (const line of verdict(outcome, io)) io.out(line);
  if (hook === 'before_llm_call' && !outcome.blocked) {
    for (const line of restrictions(outcome.value as LlmRequest)) io.out(line);
  }
  if (Object.keys(outcome.metadata).length > 0)
    io.out(`metadata: ${JSON.stringify(outcome.metadata)}`);
  showNotRunning(io, notRunning, runtime);
  return code;
}

/** An extension that took no part in the chain, and why. */
interface NotRunning {
  name: string;
  status: Exclude<ExtensionStatus, 'enabled'>;
  path?: string;
  reason: string;
  code?: DiagnosticCode;
}

/**
 * Every extension found that is not running — failed, untrusted, disabled, shadowed — and every
 * configured path that could not be loaded, so a `PASSED` never hides a guard that was not there.
 */
function notTakingPart(runtime: Runtime): NotRunning[] {
  const held: NotRunning[] = [];
  for (const ext of runtime.extensions) {
    if (ext.status === 'enabled') continue;
    held.push({
      name: ext.name,
      status: ext.status,
      ...(ext.path === undefined ? {} : { path: ext.path }),
      reason: ext.reason ?? ext.status,
      ...(ext.code === undefined ? {} : { code: ext.code }),
    });
  }
  for (const failure of runtime.loadFailures) {
    if (failure.extension !== undefined) continue; // an extension in error, listed above
    held.push({
      name: failure.file ?? 'hermes',
      status: 'error',
      reason: failure.reason,
      code: failure.code,
    });
  }
  return held;
}

function showNotRunning(io: Io, held: readonly NotRunning[], runtime: Runtime): void {
  if (held.length === 0) return;
  io.out('');
  for (const { name, status, path, reason } of held) {
    const style = status === 'error' ? 'red' : status === 'disabled' ? 'dim' : 'yellow';
    const where = path === undefined ? '' : `, ${path}`;
    io.out(
      `${paint(io, style, 'Not running')}: ${name} (${status}${where}): ${indentedMessage(reason, '    ')}`,
    );
  }
  if (runtime.loadFailures.length > 0) {
    io.out(
      `An enabled extension failed to load, so this is not what the agent would decide with it (exit 1): ${hermesCommand()} extensions doctor shows why.`,
    );
  }
  if (held.some((h) => h.status === 'untrusted')) {
    io.out(
      `Review the project's code, then: ${hermesCommand()} extensions trust${cwdFlag(runtime.projectRoot)}`,
    );
  }
}

/** What the chain decided: blocked, passed with an ask (who asked, why), or passed. */
function verdict(outcome: ChainOutcome<unknown>, io: Io): string[] {
  const value = (label: string) => `${label}: ${show(outcome.value).split('\n').join('\n  ')}`;
  return match(outcome)
    .with({ blocked: true }, ({ blockedBy, message }) => [
      `${paint(io, 'red', 'BLOCKED')} by ${blockedBy}:`,
      `  ${indentedMessage(message, '    ')}`,
    ])
    .with({ ask: P.nonNullable }, ({ ask }) => [
      `${paint(io, 'yellow', 'NEEDS APPROVAL')}: ${ask.askedBy} asks a person before this call runs:`,
      `  ${ask.message}`,
      value(outcome.changed ? 'the call as it would run (changed)' : 'the call as it would run'),
    ])
    .otherwise(({ changed }) => [
      value(paint(io, 'green', changed ? 'PASSED, CHANGED' : 'PASSED')),
    ]);
}

/** A request's restrictTools: the tools left, and who hid which and why. */
function restrictions(request: LlmRequest): string[] {
  if (request.toolRestrictions === undefined) return [];
  const left = request.tools ?? [];
  return [
    `tools left: ${left.length === 0 ? '(none)' : left.join(', ')}`,
    ...request.toolRestrictions.map(
      ({ extension, reason, hidden }) =>
        `  ${extension} hid ${hidden.length === 0 ? 'nothing offered' : hidden.join(', ')}${reason === undefined ? '' : ` (${reason})`}`,
    ),
  ];
}

/**
 * `--input` as `hook`'s payload: its fields in camelCase or in the bridge's snake_case, or a bare
 * JSON string for a payload of one text field (`transform_user_input`). A payload that does not
 * fit is refused naming the field, with the hook's sample as an example.
 */
function parseInput<H extends HookName>(hook: H, text: string | undefined): HookInput<H> {
  const decl = declarationOf(hook);
  const example = `--input '${JSON.stringify(decl.samples[0])}'`;
  if (text === undefined) throw new CliError(`--input is required, e.g. ${example}`, 2);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--input is not valid JSON (${(error as Error).message})`, 2);
  }
  const sample = decl.samples[0] as Record<string, unknown>;
  const [only, ...others] = Object.keys(sample);
  if (
    typeof value === 'string' &&
    only !== undefined &&
    others.length === 0 &&
    typeof sample[only] === 'string'
  ) {
    value = { [only]: value };
  }
  const read =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? readPayload(decl, value as Record<string, unknown>, 'either')
      : { problem: 'it must be a JSON object' };
  if ('problem' in read) {
    throw new CliError(`--input does not fit ${hook}: ${read.problem}; e.g. ${example}`, 2);
  }
  return read.input;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
