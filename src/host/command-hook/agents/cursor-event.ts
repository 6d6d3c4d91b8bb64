import { isAbsolute, resolve } from 'node:path';
import { insideRelative } from '../../../fs/paths.js';

type HookEvent = Record<string, unknown>;

/** Cursor's events (agents/cursor.ts) by the engine's names for them. */
const ENGINE_NAMES: Readonly<Record<string, string>> = {
  beforeSubmitPrompt: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  stop: 'Stop',
  sessionEnd: 'SessionEnd',
};

/** The engine's name for a Cursor event (undefined: one the engine does not answer). */
export function engineNameOf(cursorEvent: string): string | undefined {
  return Object.hasOwn(ENGINE_NAMES, cursorEvent) ? ENGINE_NAMES[cursorEvent] : undefined;
}

/**
 * A Cursor hook event in the engine's form (agent.ts): the conversation is the session (one
 * turn store per conversation), each generation — the agent's run on one prompt — a turn, the
 * call's folder its `cwd` (else the first workspace root). `tool_output` becomes the outcome
 * observers are told. An event the engine has no use for keeps its Cursor name (answered with
 * nothing); one without a name or a conversation cannot be read (a refusal, should it be a call).
 */
export function readCursorEvent(event: HookEvent): HookEvent | string {
  const name = event.hook_event_name;
  if (typeof name !== 'string') return 'the Cursor hook event has no hook_event_name';
  const session = event.conversation_id ?? event.session_id;
  if (typeof session !== 'string' || session === '')
    return `the Cursor hook event ${name} has no conversation_id`;
  const roots = Array.isArray(event.workspace_roots) ? event.workspace_roots : [];
  const cwd =
    typeof event.cwd === 'string' && event.cwd !== ''
      ? event.cwd
      : typeof roots[0] === 'string'
        ? roots[0]
        : undefined;
  const { conversation_id: _, generation_id: turn, tool_output: output, ...rest } = event;
  return {
    ...rest,
    hook_event_name: engineNameOf(name) ?? name,
    session_id: session,
    ...(typeof turn === 'string' && turn !== '' ? { turn_id: turn } : {}),
    ...(cwd === undefined ? {} : { cwd }),
    ...(output === undefined || 'tool_response' in event ? {} : { tool_response: output }),
    // The tool input as Cursor sends it for an MCP tool may be its JSON text.
    ...(typeof event.tool_input === 'string' ? { tool_input: parsed(event.tool_input) } : {}),
  };
}

/**
 * The session's folder as Cursor reports it: the workspace root the event's folder is in (the
 * first of them when it is in none), never a folder below it a Shell call runs in.
 */
export function cursorSessionFolder(event: HookEvent): string | undefined {
  const roots = (Array.isArray(event.workspace_roots) ? event.workspace_roots : []).filter(
    (root): root is string => typeof root === 'string' && isAbsolute(root),
  );
  const cwd = typeof event.cwd === 'string' ? resolve(event.cwd) : undefined;
  const holding = cwd && roots.find((root) => insideRelative(resolve(root), cwd) !== undefined);
  return holding || roots[0];
}

/** JSON text as its object; anything else stays (the engine refuses a call it cannot read). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
