import { isDeepStrictEqual } from 'node:util';
import type { ChainOutcome, TraceEntry } from '../chain/outcome.js';
import type { ExtensionDefinition } from '../extensions/define.js';
import { type ProtectedGround, protectedGround } from '../policy/protected/ground.js';
import { groundSandboxedCallOf } from '../policy/sandbox/ground-call.js';
import { createRuntime } from '../runtime/create-runtime.js';
import type { Turn } from '../runtime/turn.js';
import {
  callSummary,
  type Expected,
  type GuardCase,
  type GuardTables,
  type LlmRequestMatcher,
  type MessageMatcher,
  short,
  type TurnStep,
} from './guard-cases.js';
import { memoryLogger } from './memory-logger.js';

/** What the chain did with one call, as the tester reads its outcome. */
export interface StepOutcome {
  outcome: Expected['outcome'];
  /** The extension that blocked or asked, or those that rewrote or injected. */
  decidedBy?: string;
  /** The block's or the ask's message. */
  message?: string;
  /** The value after the chain. */
  value: unknown;
  /**
   * What the host runs, when it is not `value`: a shell call the framework made run in its
   * protected-ground sandbox (docs/trust.md, Protected ground), which `value` shows as the chain
   * left it.
   */
  runs?: unknown;
  /** Each handler that ran, in order: its extension, its action, and its error if it failed. */
  trace: TraceEntry[];
}

/** One case's result: whether it held, and when it did not, a failure text for people. */
export interface GuardCaseResult {
  name: string;
  ok: boolean;
  /** Which case and step, what was expected, what the chain did. Absent when `ok`. */
  failure?: string;
  /** What the chain did at each step that ran (a failed step is the last). */
  steps: StepOutcome[];
}

/**
 * Runs one case as a host would: a runtime with the extension alone, configured by the tables'
 * `config`, and one turn in which each step goes through its chain. The first step that does not
 * have its expected outcome ends the case. A handler that failed fails the step whatever was
 * expected: a guard that throws is blocked by the framework (fail closed), which must not pass for
 * the guard's own block.
 */
export async function runGuardCase(
  extension: ExtensionDefinition<unknown>,
  tables: GuardTables,
  guardCase: GuardCase,
  sessionId: string,
): Promise<GuardCaseResult> {
  const fail = (failure: string, steps: StepOutcome[] = []): GuardCaseResult => ({
    name: guardCase.name,
    ok: false,
    failure: `${guardCase.name}\n${failure}`,
    steps,
  });
  const runtime = await createRuntime({
    extensions: [extension],
    config: tables.config === undefined ? {} : { extensions: { [extension.name]: tables.config } },
    ...(tables.cwd === undefined ? {} : { cwd: tables.cwd }),
    logger: memoryLogger(),
  });
  try {
    const loaded = runtime.extensions.find((info) => info.name === extension.name);
    if (loaded?.status !== 'enabled') {
      const why = loaded?.reason ?? runtime.diagnostics.map((d) => d.message).join('; ');
      return fail(`  extension "${extension.name}" did not load (${loaded?.status}): ${why}`);
    }
    const done: StepOutcome[] = [];
    const ground = protectedGround(runtime.projectRoot);
    const failure = await runtime.runTurn({ sessionId, platform: 'test' }, async (turn) => {
      for (const [index, step] of guardCase.steps.entries()) {
        const got = await runStep(turn, step, ground, () => runtime.sandboxDenyRead());
        done.push(got);
        const problem = mismatch(step, got);
        if (problem !== undefined) {
          const where =
            guardCase.steps.length > 1
              ? `  step ${index + 1} of ${guardCase.steps.length}: `
              : '  ';
          return `${where}${step.hook} ${callSummary(step)}\n${problem}`;
        }
        if (
          step.hook === 'intercept_tool_call' &&
          got.outcome !== 'block' &&
          got.outcome !== 'ask'
        ) {
          await step.execute?.((got.runs ?? got.value) as Record<string, unknown>);
        }
      }
      return undefined;
    });
    return failure === undefined
      ? { name: guardCase.name, ok: true, steps: done }
      : fail(failure, done);
  } finally {
    await runtime.close();
  }
}

async function runStep(
  turn: Turn,
  step: TurnStep,
  ground: ProtectedGround,
  denyRead: () => readonly string[],
): Promise<StepOutcome> {
  if (step.hook === 'intercept_tool_call') {
    const args = step.args ?? {};
    const outcome = await turn.interceptToolCall({ toolName: step.tool, toolArgs: args });
    // The framework's sandbox is no decision of the guard's: the guard is judged on what its
    // chain left, and the host runs the sandboxed form.
    const chained = outcome.blocked
      ? undefined
      : groundSandboxedCallOf(outcome.value, ground, denyRead());
    if (chained === undefined) return read(outcome);
    const changed = !isDeepStrictEqual(chained, args);
    return { ...read({ ...outcome, value: chained, changed }), runs: outcome.value };
  }
  if (step.hook === 'transform_user_input') return read(await turn.transformUserInput(step.input));
  return read(
    await turn.beforeLlmCall({
      systemPrompt: step.systemPrompt ?? '',
      messages: step.messages ?? [],
      ...(step.iteration === undefined ? {} : { iteration: step.iteration }),
      ...(step.model === undefined ? {} : { model: step.model }),
    }),
  );
}

function read(outcome: ChainOutcome<unknown>): StepOutcome {
  const { value, trace } = outcome;
  if (outcome.blocked) {
    return {
      outcome: 'block',
      decidedBy: outcome.blockedBy,
      message: outcome.message,
      value,
      trace,
    };
  }
  if (outcome.ask) {
    const { askedBy, message } = outcome.ask;
    return { outcome: 'ask', decidedBy: askedBy, message, value, trace };
  }
  if (outcome.changed) {
    const changers = trace
      .filter((entry) => entry.action === 'rewrite' || entry.action.startsWith('inject_'))
      .map((entry) => entry.extension);
    return { outcome: 'rewrite', decidedBy: [...new Set(changers)].join(', '), value, trace };
  }
  return { outcome: 'pass', value, trace };
}

/** Why the step's outcome is not the one expected, in `expected:` / `got:` lines; or undefined. */
function mismatch(step: TurnStep, got: StepOutcome): string | undefined {
  const failed = got.trace.filter((entry) => entry.error !== undefined);
  const lines = [`  expected: ${describeExpected(step)}`, `  got:      ${describeGot(got)}`];
  const trace = `  trace:    ${describeTrace(got.trace)}`;
  if (failed.length > 0) {
    const errors = failed.map((entry) => `${entry.extension}: ${entry.error}`).join('; ');
    return [...lines, `  a handler failed: ${errors}`, trace].join('\n');
  }
  if (got.outcome !== step.outcome) return [...lines, trace].join('\n');
  if (step.outcome === 'block' || step.outcome === 'ask') {
    if (step.message !== undefined && !matches(step.message, got.message ?? '')) {
      return [...lines, trace].join('\n');
    }
  }
  if (step.outcome === 'rewrite' && step.to !== undefined && !rewroteTo(step, got.value)) {
    return [...lines, trace].join('\n');
  }
  return undefined;
}

function rewroteTo(step: TurnStep & { outcome: 'rewrite' }, value: unknown): boolean {
  if (step.hook !== 'before_llm_call') return isDeepStrictEqual(value, step.to);
  const want = step.to as LlmRequestMatcher;
  const request = value as { systemPrompt: string; messages: unknown[] };
  return (
    (want.systemPrompt === undefined || matches(want.systemPrompt, request.systemPrompt)) &&
    (want.messages === undefined || isDeepStrictEqual(request.messages, want.messages))
  );
}

/** A string matcher is a part the text must contain; a pattern must match. */
function matches(matcher: MessageMatcher, text: string): boolean {
  return typeof matcher === 'string' ? text.includes(matcher) : matcher.test(text);
}

function describeMatcher(matcher: MessageMatcher): string {
  return typeof matcher === 'string'
    ? `containing ${JSON.stringify(matcher)}`
    : `matching ${matcher}`;
}

function describeExpected(step: TurnStep): string {
  if (step.outcome === 'block' || step.outcome === 'ask') {
    return step.message === undefined
      ? step.outcome
      : `${step.outcome}, with a message ${describeMatcher(step.message)}`;
  }
  if (step.outcome === 'rewrite' && step.to !== undefined) {
    if (step.hook !== 'before_llm_call') return `rewrite to ${short(step.to)}`;
    const want = step.to as LlmRequestMatcher;
    const parts = [
      ...(want.systemPrompt === undefined
        ? []
        : [`a system prompt ${describeMatcher(want.systemPrompt)}`]),
      ...(want.messages === undefined ? [] : [`messages ${short(want.messages)}`]),
    ];
    return `rewrite to ${parts.join(' and ')}`;
  }
  return step.outcome;
}

function describeGot(got: StepOutcome): string {
  switch (got.outcome) {
    case 'block':
    case 'ask':
      return `${got.outcome} by ${got.decidedBy}: ${JSON.stringify(got.message)}`;
    case 'rewrite':
      return `rewrite by ${got.decidedBy} to ${short(got.value)}`;
    default:
      return 'pass (no extension blocked, rewrote, injected or asked)';
  }
}

function describeTrace(trace: TraceEntry[]): string {
  if (trace.length === 0) return 'no handler ran (none registered for this hook, or none matched)';
  return trace
    .map((entry) => {
      const phase = entry.phase === 'validate' ? ' (validate)' : '';
      return `${entry.extension} ${entry.action}${phase}${entry.error ? ` [error: ${entry.error}]` : ''}`;
    })
    .join(' → ');
}
