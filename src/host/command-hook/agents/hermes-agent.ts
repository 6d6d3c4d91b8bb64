import { join } from 'node:path';
import { hermesHome } from '../../../config/locations.js';
import { hermesToolIn, hermesToolOut } from '../../hermes-agent-tools.js';
import type { CommandHookAgent } from '../agent.js';
import { wrappedHookCommand } from '../hook-wrapper.js';
import type { HookAnswer, WireAnswer } from '../wire.js';
import { unapprovedHermesHooks } from './hermes-agent-approvals.js';
import { hermesCannotRewrite, terminalUnjudged } from './hermes-agent-calls.js';
import { NOTICE_EXIT_CODE } from './hermes-agent-fallback.js';

type Args = Record<string, unknown>;

/**
 * The Hermes agent's shell hooks (its `hooks:` section of `$HERMES_HOME/config.yaml`).
 *
 * Hermes runs the configured command (split into words, no shell) once per event with
 * `{hook_event_name, tool_name, tool_input, session_id, cwd, extra}` on stdin (later code adds
 * `profile`), `extra` holding every other field of the event (`turn_id`, `tool_call_id`,
 * `user_message`, `result`…).
 * It reads stdout as JSON: at `pre_tool_call` `{"action": "block", "message"}`; at any other
 * event only `{"context": "…"}`, which `pre_llm_call` adds to the user's message. An exit other
 * than 0 is logged as a warning with stderr, and stdout is still read: notices for the user go
 * there (`NOTICE_EXIT_CODE`). The release 0.19.0 reads nothing else (agent/shell_hooks.py,
 * `_parse_response` and `_make_callback`): no `modify` (later code merges one), no approve, no
 * `fail_closed` (later code blocks on a hook that cannot start, times out or prints what is not
 * JSON), exit 2 no block of its own. The hook cannot tell which Hermes runs it, so it answers
 * what 0.19.0 reads: a block on stdout, which every refusal here and the wrapper's fallback print.
 * A call that would run other than as judged is refused: every rewrite (`cannotRewrite`, naming
 * the extension and what it would change; the plugin applies rewrites), and a `terminal` call
 * without an absolute `workdir` (`unjudged`; hermes-agent-calls.ts), which Hermes runs wherever an
 * earlier `cd` left its terminal.
 *
 * How its events become the engine's:
 * - `pre_llm_call` (once per user turn, before the first model request) → `UserPromptSubmit`:
 *   transform_user_input and the first before_llm_call. Hermes takes no block there, so a block
 *   refuses the turn (`blocksPrompt: false`); a rewrite and injections go in as context.
 * - `pre_tool_call` → `PreToolUse`; `post_tool_call` → `PostToolUse` (observers only). Hermes
 *   sends `post_tool_call` for a call it did not run too, `status: "blocked"` (`error_type`
 *   `plugin_block` after a `pre_tool_call` block, agent/tool_executor.py): `tool_status:
 *   "blocked"`, not told again when the block was this hook's own (observed.ts).
 * - `on_session_end` (sent at the end of every turn) → `Stop`; `on_session_finalize` (the
 *   session's teardown) → `SessionEnd`.
 * - Hermes has no event between a tool result and the next model request a hook can answer, so
 *   before_llm_call runs at the prompt only. It cannot ask a person from a shell hook, so an ask
 *   is a refusal that says who asked: Hermes 0.19.0 reads nothing but a block from a shell hook
 *   at `pre_tool_call` (agent/shell_hooks.py, `_parse_response`), so an `{"action": "approve"}`
 *   there would be no directive and the call would run unasked. (Later code takes approve, #92553;
 *   no release up to 0.19.0 has it, and the hook cannot tell which Hermes runs it.)
 */
const EVENTS: Readonly<Record<string, string>> = {
  pre_llm_call: 'UserPromptSubmit',
  pre_tool_call: 'PreToolUse',
  post_tool_call: 'PostToolUse',
  on_session_end: 'Stop',
  on_session_finalize: 'SessionEnd',
};

export const hermesAgent: CommandHookAgent = {
  name: 'hermes-agent',
  title: 'Hermes agent',
  readEvent(raw) {
    const name = raw.hook_event_name;
    if (typeof name !== 'string') return 'the hook event has no hook_event_name';
    const extra = isRecord(raw.extra) ? raw.extra : {};
    const engineName = EVENTS[name];
    const turnId = idOf(extra.turn_id);
    const event: Args = {
      // An event the engine has no use for keeps a name it does not know: answered with nothing.
      hook_event_name: engineName ?? `hermes-agent:${name}`,
      // Hermes sends "" when it has no session: no session, so a tool call is refused.
      ...(typeof raw.session_id === 'string' && raw.session_id !== ''
        ? { session_id: raw.session_id }
        : {}),
      ...(typeof raw.cwd === 'string' && raw.cwd !== '' ? { cwd: raw.cwd } : {}),
      ...(turnId === undefined ? {} : { turn_id: turnId }),
    };
    const callId = idOf(extra.tool_call_id);
    if (engineName === 'PreToolUse' || engineName === 'PostToolUse') {
      // `tool_input` is null when the call's arguments are no object: the engine refuses that.
      Object.assign(event, {
        tool_name: raw.tool_name,
        tool_input: raw.tool_input,
        ...(callId === undefined ? {} : { tool_use_id: callId }),
        ...(engineName === 'PostToolUse' ? { tool_response: extra.result } : {}),
        // A call Hermes did not run (a pre_tool_call block, its guardrail, a tool out of scope).
        ...(engineName === 'PostToolUse' && extra.status === 'blocked'
          ? { tool_status: 'blocked' }
          : {}),
      });
    }
    if (engineName === 'UserPromptSubmit') event.prompt = extra.user_message;
    return event;
  },
  writeAnswer: writeHermesAnswer,
  blocksPrompt: false,
  // One mapping for both of Hermes' forms (hermes-agent-tools.ts). A `terminal` call reaches the
  // chain only with an absolute `workdir` (`unjudged`); without one, the session's folder is only
  // what observers are told it was asked in.
  toolIn: (name, input, cwd) => hermesToolIn(name, input, cwd),
  toolOut: (name, input, args) => hermesToolOut(name, input, args, undefined),
  unjudged: (name, input, cwd) => (name === 'terminal' ? terminalUnjudged(input, cwd) : undefined),
  cannotRewrite: hermesCannotRewrite,
  rewriteDecision: undefined,
  canAsk: false,
  afterToolEvents: [],
  endLoop: (reason) => ({ decision: 'block', reason }),
  endEvents: ['Stop', 'SessionEnd'],
  installEvents: [
    'pre_llm_call',
    'pre_tool_call',
    'post_tool_call',
    'on_session_end',
    'on_session_finalize',
  ],
  // Hermes matches a hook's `matcher` only at tool events; none is every tool.
  matchAllTools: undefined,
  matchesAllTools: (matcher) => matcher === undefined || matcher === null || matcher === '',
  settingsFormat: 'hermes-yaml',
  // Hermes reads shell hooks from its own config only (no project's).
  settingsFile: (project) =>
    project === undefined ? join(hermesHome(), 'config.yaml') : undefined,
  localSettingsFile: () => undefined,
  projectCommand: wrappedHookCommand('hermes-agent'),
  legacyProjectCommands: [],
  projectCommandRoot: (project) => project,
  unapprovedEvents: (command, events) => unapprovedHermesHooks(hermesHome(), command, events),
  afterInstall:
    'Hermes asks you to approve each hook the first time it runs one: start `hermes` in a terminal and allow them (or run it once with --accept-hooks). Until then Hermes skips them, and nothing is checked.',
  spawnTools: ['delegate_task'],
};

/**
 * The engine's answer in Hermes' wire. At a tool call, a deny (an ask too: Hermes' shell hooks
 * cannot ask) is a block with the reason; rewritten arguments never come (`cannotRewrite` refuses
 * every rewrite), and would be a block too: Hermes would run the call as written. At the prompt,
 * additional context is `context`. Anything else is no answer there. Notices and errors go to
 * stderr, with `NOTICE_EXIT_CODE` when the user must see them.
 */
function writeHermesAnswer(answer: WireAnswer): HookAnswer {
  const { event, output } = answer;
  const specific = isRecord(output?.hookSpecificOutput) ? output.hookSpecificOutput : {};
  let json: Args | undefined;
  if (event === undefined || event === 'PreToolUse') {
    const decision = specific.permissionDecision;
    if (decision === 'deny' || decision === 'ask') {
      json = { action: 'block', message: String(specific.permissionDecisionReason ?? '') };
    } else if (specific.updatedInput !== undefined) {
      json = {
        action: 'block',
        message: `Hermes extensions rewrote this call, and Hermes' shell hooks cannot apply a rewrite, so it is refused; the plugin applies rewrites (\`hermes hook install hermes-agent --plugin\`).`,
      };
    }
  } else if (event === 'UserPromptSubmit' && typeof specific.additionalContext === 'string') {
    json = { context: specific.additionalContext };
  }
  const notice = typeof output?.systemMessage === 'string' ? output.systemMessage : undefined;
  const stderr = [answer.stderr, notice].filter((text) => text !== undefined).join('\n');
  return {
    exitCode: notice !== undefined && !answer.refuses ? NOTICE_EXIT_CODE : 0,
    ...(json === undefined ? {} : { stdout: JSON.stringify(json) }),
    ...(stderr === '' ? {} : { stderr }),
  };
}

/** An id Hermes sends as a string or a number, as a non-empty string. */
function idOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Args {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
