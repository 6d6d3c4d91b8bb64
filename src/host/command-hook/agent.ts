import type { HookAnswer, WireAnswer } from './wire.js';

type Args = Record<string, unknown>;

/**
 * What the model is to read in place of a tool's result: the extensions' rewrite (`by`: who
 * rewrote it), or a refusal's text (`blockedToolResult`'s JSON).
 */
export type ResultReplacement = { rewritten: unknown; by: string } | { refusal: string };

/** The forms of settings file install writes (settings/formats.ts implements each). */
export type SettingsFormatName =
  | 'hooks-json'
  | 'hermes-yaml'
  | 'cursor-hooks-json'
  | 'antigravity-plugin'
  | 'opencode-plugin';

/**
 * One agent whose command hooks `hermes hook <agent>` answers, as a declaration the one engine
 * (run-hook.ts) reads: how its events map onto the engine's, how the engine's answers are
 * written in its wire, which tools it names how, what it can express, and where install writes.
 * Adding an agent is adding a file in agents/ and a line in agents.ts.
 *
 * The engine speaks the hook protocol Claude Code defined, which Codex and others took over: an
 * event on stdin named by `hook_event_name` (`UserPromptSubmit`, `PreToolUse`, `PostToolUse`,
 * `PostToolUseFailure`, `PostToolBatch`, `Stop`, `SessionEnd`, `SubagentStart`, `SubagentStop`) with `session_id`,
 * `cwd`, `tool_name`, `tool_input`, `tool_use_id`, `prompt`, `turn_id`, `agent_id`…; an answer
 * with `hookSpecificOutput.permissionDecision`, `additionalContext`, `decision: "block"`,
 * `systemMessage`. An agent that speaks another dialect maps its events onto these
 * (`readEvent`) and these answers onto its own (`writeAnswer`). One field is the engine's own: a
 * `PostToolUse` with `tool_status: "blocked"` reports a call the agent did not run.
 */
export interface CommandHookAgent {
  name: string;
  /** Shown in messages and given to extensions as the turn's `platform`. */
  title: string;
  /**
   * The agent's event in the engine's form (above), or an error message when it cannot be read
   * as one: the engine answers that as a failure (a refusal, for what may be a tool call). Events
   * the engine has no use for may keep a name it does not know: they are answered with nothing.
   */
  readEvent(event: Record<string, unknown>): Record<string, unknown> | string;
  /**
   * The engine's answer to an event (`event`: the engine's name for it, undefined when the event
   * could not be read) as the agent reads it: stdout, stderr and exit code.
   */
  writeAnswer(answer: WireAnswer): HookAnswer;
  /**
   * Whether the agent takes context for the model from a hook (`additionalContext`, or its own
   * field): where it does not (Cursor), injections and a rewritten prompt are not delivered.
   * Absent: it does.
   */
  takesContext?: boolean;
  /**
   * Whether the agent can refuse a prompt (`decision: "block"` at `UserPromptSubmit`). Where it
   * cannot, the engine refuses the turn instead: the model is told the request was refused and
   * why, and every tool call of the turn is refused (pre-tool-use.ts).
   */
  blocksPrompt: boolean;
  /**
   * The agent's tool call as extensions see it by default. `cwd` is the event's working folder:
   * the agent's shell runs there, so a shell call gets it as `workdir` (a relative path in the
   * command means a path below it, not below the project root).
   */
  toolIn(name: string, input: Args, cwd?: string): { toolName: string; toolArgs: Args };
  /**
   * The folder the agent itself reports as the session's, at the session's first event (the
   * engine's form of it, and the hook's environment), from which the session's project root is
   * found once and pinned (session-root.ts). Absent, or undefined: the first event's `cwd`. Only
   * what the agent sets and the project cannot: never a value a project's settings can change.
   */
  sessionFolder?(event: Args, env: NodeJS.ProcessEnv): string | undefined;
  /** Rewritten arguments, back in the agent's own names (its `updatedInput`). */
  toolOut(name: string, input: Args, args: Args): Args;
  /**
   * Why the agent cannot run a tool call (its own names) where it would be judged, if so: it is
   * refused before any extension sees it, with what to send instead. Hermes' terminal runs where an
   * earlier `cd` left it unless the call names an absolute `workdir`, which its event does not tell.
   */
  unjudged?(name: string, input: Args, cwd: string): string | undefined;
  /**
   * Why the agent cannot apply a rewrite of `input` to `args` (both in its own names), if it
   * cannot: the call is then refused, naming the extensions that rewrote it, rather than run
   * other than they decided. Hermes' shell hooks run every call as the model wrote it.
   */
  cannotRewrite?(input: Args, args: Args): string | undefined;
  rewriteDecision: 'allow' | undefined;
  /**
   * Whether the agent takes `permissionDecision: "ask"` (an extension's `ask`: a person approves
   * the call). Claude Code does, and denies the call itself when nobody can answer (`claude -p`);
   * Codex refuses `ask` (the whole answer would be ignored, failing open), so there an ask is a
   * denial that says who asked and why.
   */
  canAsk: boolean;
  /**
   * The events after tool results where the agent takes context for its next model request:
   * `before_llm_call` runs there (Claude Code's `PostToolBatch`, once per model request; Codex
   * has no batch event, so its `PostToolUse`, once per tool result).
   */
  afterToolEvents: readonly string[];
  /**
   * The `PostToolUse` answer that hands the model `text` in place of the tool's result
   * (`transform_tool_result`: its rewrite, or the refusal of a block or a failure); it applies
   * where `PostToolUse` is one of `afterToolEvents` (after-tools.ts runs it). Absent: the
   * agent cannot be handed another result by a hook, so the chain does not run there
   * (result-answer.ts; doctor names the extensions it leaves out).
   */
  replacesResult?(text: string): Record<string, unknown>;
  /**
   * The answer that ends the turn at such an event, as the agent accepts it there: Claude Code
   * stops the loop on `decision: "block"` (the reason stays in the conversation); Codex takes a
   * block there as feedback only and stops on `continue: false`.
   */
  endLoop(reason: string): Record<string, unknown>;
  /**
   * The answer at the main agent's `Stop` that keeps it going with `reason` as its next input:
   * what transform_final_answer's block becomes there (final-answer-gate.ts). Claude Code and Codex
   * take `decision: "block"` with the reason. Absent: the agent cannot be kept going at its end,
   * so the gate does not run in it, and doctor says so.
   */
  continueAtStop?(reason: string): Record<string, unknown>;
  /**
   * The answer to `PostToolUse` that puts `replacement` before the model in place of the tool's
   * `response` (transform_tool_result, tool-result.ts): a rewrite, or a refusal's text. It must be
   * an answer the agent cannot quietly ignore: where the rewrite would not be taken as given
   * (Claude Code keeps the tool's own output when a rewrite does not fit the tool's shape), it
   * answers a refusal that fits instead. Absent: the agent cannot replace a result, so the chain
   * does not run in it, and doctor says so.
   */
  replaceToolResult?(
    toolName: string,
    response: unknown,
    replacement: ResultReplacement,
  ): Record<string, unknown>;
  /**
   * Whether the agent takes `additionalContext` at `PostToolUseFailure`, next to a failed tool's
   * error it shows as it is (Claude Code): transform_tool_result runs on the error there, and
   * what a rewrite adds after it reaches the model (failure-advice.ts). Absent: it does not.
   */
  failureContext?: boolean;
  /**
   * Environment variables the agent sets for its `SessionStart` hooks alone (Claude Code's
   * `CLAUDE_ENV_FILE`). The hook daemon loads the session's runtime at `SessionStart` in the
   * environment the session's later hooks have — the event's, without these — so they find it
   * (a runtime still loading serves only a hook of the very same environment: runtime-workers.ts).
   */
  sessionStartOnlyEnv?: readonly string[];
  /** Events that end the turn (its state goes), in the engine's names. */
  endEvents: readonly string[];
  /**
   * Events `hermes hook install` registers, in the agent's own names. `PostToolUse` tells observers a tool's outcome (and
   * is where Codex runs `before_llm_call`, and where Claude Code's results pass transform_tool_result); it
   * never refuses a call, so it cannot hold one up.
   */
  installEvents: readonly string[];
  /**
   * What the agent itself calls each install event, when that is not the engine's name (OpenCode's
   * plugin hooks: `tool.execute.before` is `PreToolUse`): messages to the user say the agent's.
   */
  eventTitles?: Readonly<Record<string, string>>;
  /**
   * Install events an older agent cannot be given: the version from which its settings may name
   * them, and the command that prints the installed version (agent-version.ts).
   */
  eventsNeedVersion?: Readonly<Record<string, readonly [number, number, number]>>;
  versionProgram?: string;
  /**
   * The `PreToolUse` matcher that selects every tool, MCP tools included (undefined: no matcher
   * key), and whether a matcher already in the settings does. A guard registered for fewer tools
   * than it guards lets the others through.
   */
  matchAllTools: string | undefined;
  matchesAllTools(matcher: unknown): boolean;
  /** The form of the agent's settings file (settings/), which install and doctor read and write. */
  settingsFormat: SettingsFormatName;
  /**
   * The settings file the hook entries go in, user-wide or in the project; undefined for a
   * project when the agent reads hooks from the user's settings only.
   */
  settingsFile(project: string | undefined): string | undefined;
  /**
   * The project's settings file that is the user's own and not shared (Claude Code's
   * `settings.local.json`); undefined when the agent has none.
   */
  localSettingsFile(project: string): string | undefined;
  /**
   * The hook's command line in a project's shared settings: no path of this machine, so the file
   * can be committed and runs for everyone who installed the project's dependencies. It runs
   * the project's own `node_modules/.bin/hermes` through hook-wrapper.ts, which answers with a
   * refusal when that cannot run.
   */
  projectCommand: string;
  /**
   * The project commands earlier versions installed, which ran hermes bare (a hook that could
   * not start let every call through): still this package's hook, so install replaces them and
   * uninstall removes them.
   */
  legacyProjectCommands: readonly string[];
  /** The folder `projectCommand` finds `node_modules/.bin/hermes` in, for a session in `project`. */
  projectCommandRoot(project: string): string;
  /**
   * Of the events an installed `command` is registered for, those the agent will not run it for
   * until the user approves it (the Hermes agent asks once per event and command, and skips an
   * unapproved hook where nobody can answer). None: the agent asks nothing of the kind.
   */
  unapprovedEvents?(command: string, events: readonly string[]): string[];
  /** What the user must still do once the hook is installed, if anything. */
  afterInstall?: string;
  /**
   * The agent's tools that start a subagent: their `intercept_tool_call` carries `spawn`, whether
   * the subagent's own calls reach the hook (subagent-coverage.ts).
   */
  spawnTools: readonly string[];
}

/** An agent that reads hooks from a project's settings too (`hook install --project`). */
export type ProjectScopedAgent = Omit<CommandHookAgent, 'settingsFile'> & {
  settingsFile(project: string | undefined): string;
};

/** `events` (the engine's names) as the agent calls them, for messages. */
export function agentEventNames(agent: CommandHookAgent, events: readonly string[]): string {
  return events.map((event) => agent.eventTitles?.[event] ?? event).join(', ');
}
