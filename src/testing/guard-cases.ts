import type { ChatMessage } from '../hooks/messages.js';

/** A message matcher: a substring the message must contain, or a pattern it must match. */
export type MessageMatcher = string | RegExp;

/** One tool call: the tool's name and its arguments, as the agent sends them. */
export interface ToolCallCase {
  tool: string;
  args?: Record<string, unknown>;
  /** The test's name; default: the hook, the expectation and the call. */
  name?: string;
  /**
   * What the tool does when the chain lets it run, with the final arguments (a write writes):
   * a later call of the same turn sees its effect, as a guard that reads the disk would.
   */
  execute?: (args: Record<string, unknown>) => unknown;
}

/** One user message (`input`), as a string or with a test name. */
export type UserInputCase = string | { input: string; name?: string };

/** One model request; the system prompt and messages default to empty. */
export interface LlmCallCase {
  systemPrompt?: string;
  messages?: ChatMessage[];
  iteration?: number;
  model?: string;
  name?: string;
}

/** What a block or an ask must say. */
interface Said {
  message?: MessageMatcher;
}
/** What a `before_llm_call` rewrite or injection must have produced, each part if given. */
export interface LlmRequestMatcher {
  systemPrompt?: MessageMatcher;
  messages?: ChatMessage[];
}

/** The cases of one hook, by the outcome each must have (ESLint's valid/invalid, per action). */
export interface HookTable<Input, To> {
  /** Must pass: nothing blocks, rewrites, injects or asks. */
  pass?: Input[];
  /**
   * Must be rewritten (or, for `before_llm_call`, injected into); when `to` is given, into that
   * value exactly (deep-equal).
   */
  rewrite?: Array<Input & { to?: To }>;
  /** Must be blocked; when `message` is given, with a message containing or matching it. */
  block?: Array<Input & Said>;
  /** Must ask a person (`intercept_tool_call` only), with a message matching `message`. */
  ask?: Array<Input & Said>;
}

/** The outcome a step must have. */
export type Expected =
  | { outcome: 'pass' }
  | { outcome: 'rewrite'; to?: unknown }
  | { outcome: 'block' | 'ask'; message?: MessageMatcher };

/** A call of a sequence: the call, and the outcome it must have at that point of the turn. */
export type TurnStep =
  | ({ hook: 'intercept_tool_call' } & ToolCallCase & Expected)
  | ({ hook: 'transform_user_input'; input: string; name?: string } & Expected)
  | ({ hook: 'before_llm_call' } & LlmCallCase & Expected);

/** Several calls in one turn (same per-turn state, same project files), each with its outcome. */
export interface TurnCase {
  name: string;
  steps: TurnStep[];
}

/** What `testGuard` and `runGuardCases` run: the extension's config and its tables. */
export interface GuardTables {
  /** The extension's config: its section, `extensions.<name>`, parsed by its `configSchema`. */
  config?: unknown;
  /** The project root the extension sees (`hermes.projectRoot`). Default: `process.cwd()`. */
  cwd?: string;
  intercept_tool_call?: HookTable<ToolCallCase, Record<string, unknown>>;
  transform_user_input?: {
    pass?: UserInputCase[];
    rewrite?: Array<{ input: string; to?: string; name?: string }>;
    block?: Array<{ input: string; name?: string } & Said>;
  };
  before_llm_call?: {
    pass?: LlmCallCase[];
    rewrite?: Array<LlmCallCase & { to?: LlmRequestMatcher }>;
    block?: Array<LlmCallCase & Said>;
  };
  /** Sequences of calls in one turn. */
  turns?: TurnCase[];
}

/** One case as it runs: a name and the steps of its turn (one, unless it is a sequence). */
export interface GuardCase {
  name: string;
  steps: TurnStep[];
}

type Outcome = Expected['outcome'];
const OUTCOMES: Outcome[] = ['pass', 'rewrite', 'block', 'ask'];
const HOOKS = ['intercept_tool_call', 'transform_user_input', 'before_llm_call'] as const;

/**
 * Every case of the tables, in a stable order (per hook, per outcome, as written; then the turns),
 * each named so a test list reads as a specification: `intercept_tool_call › block › write
 * {"path":"src/a.ts"}`. Throws on a table that is not one (a misspelt outcome, a case without a
 * tool), naming where it is.
 */
export function guardCases(tables: GuardTables): GuardCase[] {
  if (tables === null || typeof tables !== 'object') {
    throw new TypeError('guard tables must be an object: { config?, intercept_tool_call?, … }');
  }
  const known = [
    'config',
    'cwd',
    'intercept_tool_call',
    'transform_user_input',
    'before_llm_call',
    'turns',
  ];
  for (const key of Object.keys(tables)) {
    if (!known.includes(key)) {
      throw new TypeError(`guard tables: unknown key "${key}" (known: ${known.join(', ')})`);
    }
  }
  const cases: GuardCase[] = [];
  for (const hook of HOOKS) {
    const table = tables[hook] as Record<string, unknown[] | undefined> | undefined;
    if (table === undefined) continue;
    for (const key of Object.keys(table)) {
      const allowed = hook === 'intercept_tool_call' ? OUTCOMES : OUTCOMES.slice(0, 3);
      if (!allowed.includes(key as Outcome)) {
        throw new TypeError(
          `guard tables: ${hook}.${key} is not an outcome (${hook} takes ${allowed.join(', ')})`,
        );
      }
    }
    for (const outcome of OUTCOMES) {
      const rows = table[outcome];
      if (rows === undefined) continue;
      if (!Array.isArray(rows))
        throw new TypeError(`guard tables: ${hook}.${outcome} must be an array`);
      rows.forEach((row, index) => {
        const step = stepOf(hook, outcome, row, `${hook}.${outcome}[${index}]`);
        cases.push({ name: step.name ?? caseName(step), steps: [step] });
      });
    }
  }
  (tables.turns ?? []).forEach((turn, index) => {
    if (typeof turn?.name !== 'string' || !Array.isArray(turn.steps) || turn.steps.length === 0) {
      throw new TypeError(`guard tables: turns[${index}] needs a name and a non-empty steps array`);
    }
    const steps = turn.steps.map((step, at) => {
      const where = `turns[${index}].steps[${at}]`;
      if (!HOOKS.includes(step?.hook)) {
        throw new TypeError(`guard tables: ${where}.hook must be one of ${HOOKS.join(', ')}`);
      }
      if (!OUTCOMES.includes(step.outcome)) {
        throw new TypeError(`guard tables: ${where}.outcome must be one of ${OUTCOMES.join(', ')}`);
      }
      return stepOf(step.hook, step.outcome, step, where);
    });
    cases.push({ name: `turn › ${turn.name}`, steps });
  });
  return cases;
}

function stepOf(hook: TurnStep['hook'], outcome: Outcome, row: unknown, where: string): TurnStep {
  if (hook === 'transform_user_input' && typeof row === 'string') {
    return { hook, input: row, outcome } as TurnStep;
  }
  if (row === null || typeof row !== 'object') {
    throw new TypeError(`guard tables: ${where} must be an object`);
  }
  const fields = row as Record<string, unknown>;
  if (hook === 'intercept_tool_call' && typeof fields.tool !== 'string') {
    throw new TypeError(`guard tables: ${where} needs "tool", the tool's name`);
  }
  if (hook === 'transform_user_input' && typeof fields.input !== 'string') {
    throw new TypeError(`guard tables: ${where} needs "input", the user's message`);
  }
  return { ...fields, hook, outcome } as TurnStep;
}

/** A step's readable name: `hook › outcome › what was called`. */
export function caseName(step: TurnStep): string {
  return `${step.hook} › ${step.outcome} › ${callSummary(step)}`;
}

/** The call in a few words: the tool and its arguments, the message, the request. */
export function callSummary(step: TurnStep): string {
  if (step.hook === 'intercept_tool_call') return `${step.tool} ${short(step.args ?? {})}`;
  if (step.hook === 'transform_user_input') return short(step.input);
  return `request ${short({ systemPrompt: step.systemPrompt ?? '', messages: step.messages ?? [] })}`;
}

const LIMIT = 100;

/** JSON of a value, cut to a readable length. */
export function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > LIMIT ? `${text.slice(0, LIMIT - 1)}…` : text;
}
