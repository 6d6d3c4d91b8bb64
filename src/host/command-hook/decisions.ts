import { createHash } from 'node:crypto';
import type { CommandHookAgent } from './agents.js';
import { deny, type PendingAnswer } from './answers.js';
import { refusalOf } from './tool-call-answer.js';
import type { DecidedCall, StoredTurn } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * How many decided calls a turn keeps, the newest: a turn's record is rewritten on every call, so
 * it must stay small. A call decided more than this many calls ago that comes again is decided
 * again, and a reported outcome of it would count as unchecked (turn-coverage.ts); both need a
 * turn of hundreds of calls with one call's events that far apart.
 */
export const DECISIONS_KEPT = 256;

/**
 * The largest answer kept to be given again, in characters of JSON. Denials and plain allows are
 * far smaller; a rewrite of a large file's content may not be. Past this only the call's digest is
 * kept, and the call, should it come again, is refused rather than decided a second time.
 */
export const ANSWER_BYTES_KEPT = 4096;

/** A `PreToolUse` as the record knows it: the agent's call id and a digest of the call. */
export interface CallKey {
  id: string;
  call: string;
}

/**
 * The key of a `PreToolUse`, or none when it has no `tool_use_id` (such a call cannot be told
 * apart from a new one, so it is decided each time it comes) or is not a tool call. The digest
 * covers what the decision was made on — the agent, the tool, its input (object keys sorted, so
 * the same input sent again in another order is the same call) and the folder it runs in — so the
 * id of one call sent with another call's input never gets that call's answer.
 */
export function callKeyOf(agent: CommandHookAgent, event: HookEvent): CallKey | undefined {
  const id = event.tool_use_id;
  if (typeof id !== 'string' || id === '' || typeof event.tool_name !== 'string') return undefined;
  const what = [agent.name, event.tool_name, sorted(event.tool_input), event.cwd ?? null];
  return { id, call: createHash('sha256').update(JSON.stringify(what)).digest('hex') };
}

/**
 * The answer already given to this call in `turn`, if it was decided there: the same answer again;
 * a denial when the id was decided for another call (a buggy or hostile event must not get another
 * call's allow), or when the answer was too large to keep.
 */
export function answerDecided(
  agent: CommandHookAgent,
  turn: StoredTurn | undefined,
  key: CallKey,
): PendingAnswer | undefined {
  const earlier = turn?.decisions?.find((decided) => decided.id === key.id);
  if (earlier === undefined) return undefined;
  const refuse = (why: string) =>
    deny(`Hermes refused this call: ${why}`, `hermes hook ${agent.name}: ${why}`);
  if (earlier.call !== key.call) {
    return refuse(
      `the tool call id ${JSON.stringify(key.id)} was already decided in this turn for another call (another tool, input or folder); one id is one call`,
    );
  }
  if (earlier.answer === undefined) {
    return refuse(
      `the tool call ${JSON.stringify(key.id)} was already decided in this turn, and its answer was too large to keep to give again`,
    );
  }
  return {
    refuses: earlier.answer.refuses,
    ...(earlier.answer.output === undefined ? {} : { output: earlier.answer.output }),
  };
}

/**
 * Whether the call with this id was refused here in `turn`: its outcome was told observers when
 * it was refused (pre-tool-use.ts), so an agent's later report that it did not run is not told again.
 */
export function refusedHere(turn: StoredTurn | undefined, id: unknown): boolean {
  if (typeof id !== 'string' || id === '') return false;
  const answer = turn?.decisions?.find((decided) => decided.id === id)?.answer;
  return answer !== undefined && refusalOf(answer) !== undefined;
}

/** The turn's decided calls with this one added, the oldest dropped past `DECISIONS_KEPT`. */
export function withDecision(turn: StoredTurn, key: CallKey, answer: PendingAnswer): DecidedCall[] {
  const kept = { refuses: answer.refuses, ...(answer.output ? { output: answer.output } : {}) };
  const small = JSON.stringify(kept).length <= ANSWER_BYTES_KEPT;
  const decided: DecidedCall = { ...key, ...(small ? { answer: kept } : {}) };
  const earlier = (turn.decisions ?? []).filter((d) => d.id !== key.id);
  return [...earlier, decided].slice(-DECISIONS_KEPT);
}

/** The value with every object's keys in order: the same data, one way to write it. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value ?? null;
  const entries = Object.entries(value as Record<string, unknown>);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
}
