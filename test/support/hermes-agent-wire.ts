import { z } from 'zod';

/**
 * The Hermes agent's shell-hook wire, written from its hooks guide and its shell-hook bridge: what
 * it writes on a hook's stdin, and how it reads the hook's answer. The engine's answers are
 * checked against these, and read back as Hermes would read them.
 */

/**
 * What Hermes writes on stdin: the event's fields, every field but four under `extra`. Hermes
 * 0.19.0 sends no `profile` (agent/shell_hooks.py, `_serialize_payload`); later code does.
 */
export const hermesPayload = z.strictObject({
  hook_event_name: z.string(),
  tool_name: z.string().nullable(),
  tool_input: z.record(z.string(), z.unknown()).nullable(),
  session_id: z.string(),
  cwd: z.string(),
  profile: z.string().optional(),
  extra: z.record(z.string(), z.unknown()),
});

/** A Hermes event as its shell hooks get it, from the fields its call site passes. */
export function hermesEvent(
  event: string,
  fields: Record<string, unknown> & { session_id?: string; cwd: string },
): string {
  const { tool_name, args, session_id, parent_session_id, cwd, ...extra } = fields;
  const payload = {
    hook_event_name: event,
    tool_name: tool_name ?? null,
    tool_input: args !== null && typeof args === 'object' && !Array.isArray(args) ? args : null,
    session_id: session_id ?? parent_session_id ?? '',
    cwd,
    extra: { ...extra, ...(parent_session_id === undefined ? {} : { parent_session_id }) },
  };
  return JSON.stringify(hermesPayload.parse(payload));
}

/**
 * The answer this package sends at `pre_tool_call`: a block, and nothing else. Hermes 0.19.0 reads
 * no other directive there (agent/shell_hooks.py, `_parse_response`), so a `modify` or an
 * `approve` would be dropped and the call would run as the model wrote it.
 */
const preToolCallAnswer = z.strictObject({
  action: z.literal('block'),
  message: z.string().min(1),
});
/** At every other event Hermes reads `context` only. */
const contextAnswer = z.strictObject({ context: z.string().trim().min(1) });

/** The schema of an answer's stdout at `event`. */
export function hermesAnswerSchema(event: string): z.ZodType {
  return event === 'pre_tool_call' ? preToolCallAnswer : contextAnswer;
}

export type HermesDirective =
  | { action: 'block'; message: string }
  | { context: string }
  | undefined;

/**
 * What Hermes 0.19.0 makes of a hook's answer (agent/shell_hooks.py): `_make_callback` reads
 * stdout whatever the exit code (a code other than 0 is only logged, exit 2 included), and a hook
 * that cannot start or times out is no directive; `_parse_response` takes stdout that is a JSON
 * object, else nothing — at `pre_tool_call` `{"action": "block"}` (its `message`, else `reason`)
 * or `{"decision": "block"}` (its `reason`, else `message`), and nothing else (no `modify`, no
 * `approve`); at another event a non-blank `context`. `fail_closed` is not read at all.
 */
export function hermesReads(
  event: string,
  answer: { code: number; stdout: string; stderr: string },
): HermesDirective {
  const stdout = answer.stdout.trim();
  let data: unknown;
  try {
    data = stdout === '' ? undefined : JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const object = data as Record<string, unknown>;
  if (event === 'pre_tool_call') {
    // `_block_message`: the first of two fields that is truthy, if a non-empty string.
    const message = (primary: unknown, secondary: unknown) => {
      const raw = primary || secondary;
      return typeof raw === 'string' && raw !== '' ? raw : 'Blocked by shell hook.';
    };
    if (object.action === 'block')
      return { action: 'block', message: message(object.message, object.reason) };
    if (object.decision === 'block')
      return { action: 'block', message: message(object.reason, object.message) };
    return undefined;
  }
  return typeof object.context === 'string' && object.context.trim() !== ''
    ? { context: object.context }
    : undefined;
}
