import { match, P } from 'ts-pattern';
import type { ChainOutcome, ChainStep } from '../../chain/outcome.js';
import { assertHookName } from '../../extensions/hook-names.js';
import type { LlmRequest } from '../../hooks/before-llm-call.js';
import { declarationOf, type HookInput, type HookName } from '../../hooks/index.js';
import { readPayload } from '../../hooks/payload.js';
import { runHook } from '../../runtime/turn.js';
import { type CommandContext, loadForCommand } from '../context.js';
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
      { sessionId, onTrace: (step) => void steps.push(step) },
      (turn) => runHook(turn, hook, input),
    );
  } finally {
    await runtime.close();
  }
  if (options.json) {
    io.out(JSON.stringify({ outcome }, null, 2));
    return outcome.blocked ? 1 : 0;
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
  // An ask is a decision the host puts to a person, not a failure of the chain: exit 0.
  return outcome.blocked ? 1 : 0;
}

/** What the chain decided: blocked, passed with an ask (who asked, why), or passed. */
function verdict(outcome: ChainOutcome<unknown>, io: Io): string[] {
  const value = (label: string) => `${label}: ${show(outcome.value).split('\n').join('\n  ')}`;
  return match(outcome)
    .with({ blocked: true }, ({ blockedBy, message }) => [
      `${paint(io, 'red', 'BLOCKED')} by ${blockedBy}:`,
      `  ${message}`,
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
