import { isDeepStrictEqual } from 'node:util';
import { match, P } from 'ts-pattern';
import type { ApprovalAsk, ChainOutcome, TraceEntry } from '../../chain/outcome.js';
import type { CommandHookAgent } from './agent.js';
import { deny, NO_DECISION, type PendingAnswer, reasonOf } from './answers.js';

type Args = Record<string, unknown>;

/**
 * The answer to a `PreToolUse`, from its intercept_tool_call outcome: a block is a deny with the
 * reason; an ask is `permissionDecision: "ask"` where the agent takes one (with the rewritten
 * arguments, when the chain rewrote the call too: the person is asked about the call as it would
 * run), else a deny that says who asked; a rewrite alone is `updatedInput` with the agent's
 * `rewriteDecision`, or a deny naming who rewrote it where the agent cannot apply it; anything
 * else is no decision. `updatedInput` gives the rewritten arguments in the agent's own names: a
 * rewrite that comes back as the call itself in them is no rewrite.
 */
export function toolCallAnswer(
  agent: CommandHookAgent,
  outcome: ChainOutcome<Args>,
  call: { input: Args; updatedInput: () => Args },
): PendingAnswer {
  const rewrite = () => {
    const args = call.updatedInput();
    if (isDeepStrictEqual(args, call.input)) return NO_DECISION;
    const problem = agent.cannotRewrite?.(call.input, args);
    return problem === undefined
      ? rewriteAnswer(agent, args)
      : deny(
          `${rewriters(outcome.trace)} rewrote this call in a way ${agent.title} cannot apply, so it is refused: ${problem}`,
        );
  };
  return match(outcome)
    .with({ blocked: true }, (blocked) => deny(reasonOf(blocked)))
    .with({ ask: P.nonNullable }, ({ ask, changed }) =>
      agent.canAsk
        ? askAnswer(ask, changed ? call.updatedInput() : undefined)
        : deny(cannotAsk(agent, ask)),
    )
    .with({ changed: true }, rewrite)
    .otherwise(() => NO_DECISION);
}

/** The extensions whose rewrites made the call's arguments, by name. */
function rewriters(trace: readonly TraceEntry[]): string {
  const names = [
    ...new Set(trace.filter((entry) => entry.action === 'rewrite').map((e) => e.extension)),
  ];
  return names.length === 0 ? 'Hermes extensions' : names.join(', ');
}

/**
 * Why the agent will not run the call, if the answer refuses it (observers are told then: the
 * agent sends no `PostToolUse` for it): a block, an ask the agent cannot put to a person, a
 * rewrite it cannot apply. An ask it puts to the person is no refusal: the person decides.
 */
export function refusalOf(answer: PendingAnswer): string | undefined {
  const specific = answer.output?.hookSpecificOutput as Args | undefined;
  return specific?.permissionDecision === 'deny'
    ? String(specific.permissionDecisionReason ?? '')
    : undefined;
}

/** What the person is shown (and, when nobody can answer, the model): why, and who asked. */
function approvalReason(ask: ApprovalAsk): string {
  return `needs approval: ${ask.message} (asked by ${ask.askedBy})`;
}

function cannotAsk(agent: CommandHookAgent, ask: ApprovalAsk): string {
  return `${approvalReason(ask)}; ${agent.title} hooks cannot ask a person, so the call is refused`;
}

/**
 * `permissionDecision: "ask"`. It counts as a refusal for the notices that ride on answers: the
 * person may say no, and an answer that may refuse must never be the one a parser drops.
 */
function askAnswer(ask: ApprovalAsk, updatedInput: Args | undefined): PendingAnswer {
  return {
    refuses: true,
    output: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: approvalReason(ask),
        ...(updatedInput === undefined ? {} : { updatedInput }),
      },
    },
  };
}

function rewriteAnswer(agent: CommandHookAgent, updatedInput: Args): PendingAnswer {
  const decision = agent.rewriteDecision;
  return {
    refuses: false,
    output: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        ...(decision === undefined ? {} : { permissionDecision: decision }),
        updatedInput,
      },
    },
  };
}
