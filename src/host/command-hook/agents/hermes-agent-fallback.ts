import { shJson } from './cursor-fallback.js';

/**
 * What the installed command answers in the Hermes agent's wire when hermes cannot run
 * (hook-wrapper.ts): exit 2 — a block at `pre_tool_call`, a logged warning at any other event —
 * with the reason as `{"action": "block", "message"}` on stdout, which Hermes takes as the
 * block's message before stderr (where Node's own error may come first). At other events Hermes
 * reads only `context`, so the JSON means nothing there. A line of that program: no quote or
 * backslash.
 */
export const HERMES_AGENT_FALLBACK = `printf %s ${shJson({
  action: 'block',
  message: 'Hermes could not check this call, so it is refused: @REASON@',
})}; exit 2`;

/**
 * The exit code of an answer that also carries a notice for the user on stderr, for an agent
 * that shows a hook's stderr only when it exits with neither 0 nor 2 (and still reads its
 * stdout): the Hermes agent logs it as a warning. Never the exit code of a failure (Node exits 1).
 */
export const NOTICE_EXIT_CODE = 3;

/**
 * Hermes' answer with a notice for the user (NOTICE_EXIT_CODE) is an answer, not a failure:
 * passed on as it is.
 */
export const HERMES_AGENT_PASSED = `if [ "$s" = ${NOTICE_EXIT_CODE} ]; then printf %s "$o"; exit ${NOTICE_EXIT_CODE}; fi`;
