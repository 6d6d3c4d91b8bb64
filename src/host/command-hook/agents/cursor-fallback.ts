/**
 * The answers the installed command prints in Cursor's wire when hermes cannot run
 * (hook-wrapper.ts runs them): Claude Code's form would be no `permission` at all to Cursor, and
 * Cursor runs a call nobody refused. The text is a line of that program: no quote or backslash
 * (`${q}` is the `"` it is given, `$m` what went wrong, `$n` the event, `$k` the start of
 * `"hook_event_name":"`).
 */

/** Where an answer puts the reason; the program prints `$m` there. */
const REASON = '@REASON@';

/** An answer as a double-quoted sh string that prints this JSON with the reason in it. */
export function shJson(answer: Record<string, unknown>): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  return `"${JSON.stringify(answer).replaceAll('"', '${q}').replaceAll(REASON, '$m')}"`;
}

const why = `Hermes could not check this call, so it is refused: ${REASON}`;
const DENY = shJson({ permission: 'deny', user_message: why, agent_message: why });
const BLOCK_PROMPT = shJson({
  continue: false,
  user_message: `Hermes could not check this prompt, so it is blocked: ${REASON}`,
});

/**
 * The events whose answer is a `permission` (a refusal for each), checked before any other: a
 * tool call's arguments may spell another event's name, escaped, which never matches.
 */
const PERMISSION_EVENTS = [
  'preToolUse',
  'beforeShellExecution',
  'beforeMCPExecution',
  'beforeReadFile',
  'subagentStart',
];

const events = (names: readonly string[]) => names.map((name) => `*"$k"${name}"$q"*`).join('|');

/**
 * A refusal for a tool call (and for an event whose name cannot be read, which may be one);
 * `continue: false` for a prompt; `{}` for the rest (`stop` would take a follow-up message as
 * more work, and the others refuse nothing).
 */
export const CURSOR_FALLBACK = `case $n in ${events(PERMISSION_EVENTS)}) printf %s ${DENY};; ${events(['beforeSubmitPrompt'])}) printf %s ${BLOCK_PROMPT};; *"$k"*) printf %s {};; *) printf %s ${DENY};; esac`;
