import { z } from 'zod';

/**
 * The Hermes agent's shell-hook wire, written from its hooks guide and its shell-hook bridge: what
 * it writes on a hook's stdin, and how it reads the hook's answer. The engine's answers are
 * checked against these, and read back as Hermes would read them.
 */

/** What Hermes writes on stdin: the event's fields, every field but four under `extra`. */
export const hermesPayload = z.strictObject({
  hook_event_name: z.string(),
  tool_name: z.string().nullable(),
  tool_input: z.record(z.string(), z.unknown()).nullable(),
  session_id: z.string(),
  cwd: z.string(),
  profile: z.string(),
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
    profile: 'default',
    extra: { ...extra, ...(parent_session_id === undefined ? {} : { parent_session_id }) },
  };
  return JSON.stringify(hermesPayload.parse(payload));
}

/** The answers Hermes reads at `pre_tool_call` (its own dialect; nothing else is sent). */
const preToolCallAnswer = z.union([
  z.strictObject({ action: z.literal('block'), message: z.string().min(1) }),
  z.strictObject({ action: z.literal('modify'), args: z.record(z.string(), z.unknown()) }),
]);
/** At every other event Hermes reads `context` only. */
const contextAnswer = z.strictObject({ context: z.string().trim().min(1) });

/** The schema of an answer's stdout at `event`. */
export function hermesAnswerSchema(event: string): z.ZodType {
  return event === 'pre_tool_call' ? preToolCallAnswer : contextAnswer;
}

export type HermesDirective =
  | { action: 'block'; message: string }
  | { action: 'modify'; args: Record<string, unknown> }
  | { context: string }
  | undefined;

/**
 * What Hermes makes of a hook's answer, as its bridge documents it: a spawn failure or time-out
 * blocks a `fail_closed` pre_tool_call hook and is nothing otherwise; exit 2 at pre_tool_call
 * blocks (a block in stdout, else stderr's first 400 characters); any other exit still has its
 * stdout read; stdout that is not a JSON object is nothing, or a block for a `fail_closed`
 * pre_tool_call hook when it is not empty.
 */
export function hermesReads(
  event: string,
  answer: { code: number; stdout: string; stderr: string },
  failClosed = true,
): HermesDirective {
  const blocking = event === 'pre_tool_call';
  const stdout = answer.stdout.trim();
  let data: unknown;
  try {
    data = stdout === '' ? undefined : JSON.parse(stdout);
  } catch {
    data = undefined;
  }
  const object =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  const parsed = object === undefined ? undefined : parse(event, object);
  if (blocking && answer.code === 2) {
    if (parsed !== undefined && 'action' in parsed && parsed.action === 'block') return parsed;
    return {
      action: 'block',
      message: answer.stderr.trim().slice(0, 400) || 'Blocked by shell hook.',
    };
  }
  if (parsed === undefined && blocking && failClosed && stdout !== '' && object === undefined) {
    return { action: 'block', message: 'failed closed: unparseable stdout' };
  }
  return parsed;
}

function parse(event: string, data: Record<string, unknown>): HermesDirective {
  if (event === 'pre_tool_call') {
    const message = (primary: unknown, secondary: unknown) => {
      const raw = primary || secondary;
      return typeof raw === 'string' && raw !== '' ? raw : 'Blocked by shell hook.';
    };
    if (data.action === 'block')
      return { action: 'block', message: message(data.message, data.reason) };
    if (data.decision === 'block')
      return { action: 'block', message: message(data.reason, data.message) };
    const args =
      data.action === 'modify'
        ? data.args
        : data.decision === 'modify'
          ? data.tool_input
          : undefined;
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      return { action: 'modify', args: args as Record<string, unknown> };
    }
    return undefined;
  }
  return typeof data.context === 'string' && data.context.trim() !== ''
    ? { context: data.context }
    : undefined;
}
