import type { ChainOutcome, ChainStep } from '../../chain/outcome.js';
import { assertHookName } from '../../extensions/hook-names.js';
import type { HookName } from '../../hooks/index.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { CliError, type Io, paint } from '../io.js';

/**
 * `hermes extensions test HOOK --input JSON`: runs one chain on a payload in a throwaway turn and
 * shows each handler's decision, its time, what it changed (a diff), and the outcome.
 * Exit 0 when not blocked, 1 when blocked.
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
  const payload = parsePayload(hook, options.input);
  const { runtime } = await loadForCommand(context);
  const steps: ChainStep[] = [];
  const sessionId = options.session ?? `cli-test-${process.pid}`;
  let outcome: ChainOutcome<unknown>;
  try {
    outcome = await runtime.runTurn(
      { sessionId, onTrace: (step) => void steps.push(step) },
      (turn) => {
        if (hook === 'transform_user_input')
          return turn.transformUserInput(payload.userMessage as string);
        if (hook === 'before_llm_call') return turn.beforeLlmCall(payload as never);
        return turn.interceptToolCall(payload as never);
      },
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
  let before = initialValue(hook, payload);
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
  if (outcome.blocked) {
    io.out(`${paint(io, 'red', 'BLOCKED')} by ${outcome.blockedBy}:`);
    io.out(`  ${outcome.message}`);
  } else {
    io.out(
      `${paint(io, 'green', outcome.changed ? 'PASSED, CHANGED' : 'PASSED')}: ${show(outcome.value).split('\n').join('\n  ')}`,
    );
  }
  if (Object.keys(outcome.metadata).length > 0)
    io.out(`metadata: ${JSON.stringify(outcome.metadata)}`);
  return outcome.blocked ? 1 : 0;
}

const EXAMPLES: Record<HookName, string> = {
  transform_user_input: '{"userMessage":"fix the login bug"}',
  before_llm_call:
    '{"systemPrompt":"You are a coding agent.","messages":[{"role":"user","content":"hi"}]}',
  intercept_tool_call: '{"toolName":"write","toolArgs":{"path":"src/a.ts"}}',
};

function parsePayload(hook: HookName, input: string | undefined): Record<string, unknown> {
  if (input === undefined)
    throw new CliError(`--input is required, e.g. --input '${EXAMPLES[hook]}'`, 2);
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch (error) {
    throw new CliError(`--input is not valid JSON (${(error as Error).message})`, 2);
  }
  if (hook === 'transform_user_input' && typeof value === 'string') return { userMessage: value };
  const record = value as Record<string, unknown>;
  const valid =
    value !== null &&
    typeof value === 'object' &&
    (hook === 'transform_user_input'
      ? typeof record.userMessage === 'string'
      : hook === 'before_llm_call'
        ? typeof record.systemPrompt === 'string' && Array.isArray(record.messages)
        : typeof record.toolName === 'string' &&
          record.toolArgs !== null &&
          typeof record.toolArgs === 'object');
  if (!valid)
    throw new CliError(
      `--input does not fit ${hook}; expected something like ${EXAMPLES[hook]}`,
      2,
    );
  return record;
}

function initialValue(hook: HookName, payload: Record<string, unknown>): string {
  if (hook === 'transform_user_input') return show(payload.userMessage);
  if (hook === 'before_llm_call')
    return show({ systemPrompt: payload.systemPrompt, messages: payload.messages });
  return show(payload.toolArgs);
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
