import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The OpenCode plugin: `hermes hook install opencode` writes this module's compiled text, with
// the command it runs, into OpenCode's plugin folder
// (src/host/command-hook/settings/opencode-plugin-file.ts). It runs inside OpenCode's own process
// (Bun), so it imports nothing but Node's built-ins, which Bun provides: a file in
// ~/.config/opencode/plugins/ cannot count on any package being found from there. Each hook
// becomes one event of the command-hook engine, answered by a `hermes hook opencode` process
// (which asks the user's warm hook daemon first), as Claude Code and Codex run their hooks.

type Args = Record<string, unknown>;
type Answer = Record<string, unknown>;

export interface HermesPluginOptions {
  /** hermes' command line (`node …/bin/hermes.js hook opencode`); empty: the project's own. */
  argv: string[];
  /** Where the plugin file is (its `import.meta.url`): a project's is in `<root>/.opencode/plugins/`. */
  pluginUrl?: string;
  /** How long one hook process may take before the call it was asked about is refused. */
  timeoutMs?: number;
}

/** What OpenCode hands a plugin, as far as this one uses it. */
interface PluginInput {
  directory: string;
  client?: {
    session?: { abort?(options: { path: { id: string } }): Promise<unknown> };
    app?: { log?(options: { body: Record<string, unknown> }): Promise<unknown> };
    tui?: { showToast?(options: { body: Record<string, unknown> }): Promise<unknown> };
  };
}

interface Part {
  type?: string;
  text?: string;
  synthetic?: boolean;
}

interface OpencodeEvent {
  type: string;
  properties?: { sessionID?: string; info?: { id?: string; parentID?: string } };
}

/** A hook process that answered, or why none did. */
type Outcome = { answer: Answer } | { failure: string };

const DEFAULT_TIMEOUT_MS = 60_000;

/** The plugin OpenCode loads, running `options.argv` (or the project's hermes) per hook. */
export function createHermesPlugin(options: HermesPluginOptions) {
  return async (ctx: PluginInput) => {
    const command = commandOf(options);
    // Subagents (the `task` tool) run in child sessions: their calls are their parent's turn's,
    // told apart by the child session as `agent_id`.
    const parents = new Map<string, string>();
    // Context for the model: from the prompt, for the whole turn; from a tool result, for the
    // next request only (the injections of before_llm_call are per request).
    const turnContext = new Map<string, string>();
    const nextContext = new Map<string, string>();

    const identity = (sessionID: string) => {
      const parent = parents.get(sessionID);
      return parent === undefined
        ? { session_id: sessionID }
        : { session_id: parent, agent_id: sessionID };
    };
    // Hook processes still running: `opencode run` exits right after the session goes idle, but
    // awaits its plugins' `dispose` (measured with opencode-ai 1.18.33), which waits for them, so
    // the turn's Stop is answered and its state removed.
    const running = new Set<Promise<Outcome>>();
    const ask = (event: Args) => {
      const outcome = runHook(command, { cwd: ctx.directory, ...event }, options);
      running.add(outcome);
      void outcome.finally(() => running.delete(outcome));
      return outcome;
    };
    const tell = (message: unknown) => {
      if (typeof message === 'string' && message !== '') void tellUser(ctx, message);
    };

    return {
      dispose: async () => {
        await Promise.all([...running]);
      },

      event: async ({ event }: { event: OpencodeEvent }) => {
        const info = event.properties?.info;
        if (event.type === 'session.created' && info?.id && info.parentID)
          parents.set(info.id, parents.get(info.parentID) ?? info.parentID);
        const sessionID = event.properties?.sessionID;
        // A subagent's session going idle is not the end of its parent's turn.
        if (event.type !== 'session.idle' || !sessionID || parents.has(sessionID)) return;
        turnContext.delete(sessionID);
        nextContext.delete(sessionID);
        const outcome = await ask({
          hook_event_name: 'Stop',
          ...identity(sessionID),
          stop_hook_active: false,
        });
        tell('failure' in outcome ? `Hermes: ${outcome.failure}` : outcome.answer.systemMessage);
      },

      'chat.message': async (
        input: { sessionID: string },
        output: { parts: Part[] },
      ): Promise<void> => {
        const prompt = output.parts
          .filter((part) => part.type === 'text' && !part.synthetic)
          .map((part) => part.text ?? '')
          .join('\n');
        const outcome = await ask({
          hook_event_name: 'UserPromptSubmit',
          ...identity(input.sessionID),
          prompt,
        });
        // A prompt nobody could check is refused: every tool call of its turn would be anyway.
        if ('failure' in outcome)
          return refusePrompt(
            ctx,
            `Hermes could not check this prompt, so it is blocked: ${outcome.failure}`,
          );
        const { answer } = outcome;
        tell(answer.systemMessage);
        if (answer.decision === 'block')
          return refusePrompt(
            ctx,
            reasonText(answer.reason, 'Hermes extensions blocked this prompt'),
          );
        const context = contextOf(answer);
        if (context === undefined) turnContext.delete(input.sessionID);
        else turnContext.set(input.sessionID, context);
      },

      'experimental.chat.system.transform': async (
        input: { sessionID?: string },
        output: { system: string[] },
      ): Promise<void> => {
        const sessionID = input.sessionID;
        if (sessionID === undefined) return;
        for (const map of [turnContext, nextContext]) {
          const context = map.get(sessionID);
          if (context !== undefined) output.system.push(context);
        }
        nextContext.delete(sessionID);
      },

      'tool.execute.before': async (
        input: { tool: string; sessionID: string; callID: string },
        output: { args: Args },
      ): Promise<void> => {
        const outcome = await ask({
          hook_event_name: 'PreToolUse',
          ...identity(input.sessionID),
          tool_name: input.tool,
          tool_input: output.args ?? {},
          tool_use_id: input.callID,
        });
        if ('failure' in outcome)
          throw new Error(`Hermes could not check this call, so it is refused: ${outcome.failure}`);
        const { answer } = outcome;
        tell(answer.systemMessage);
        const specific = answer.hookSpecificOutput as Answer | undefined;
        const decision = specific?.permissionDecision;
        if (decision === 'deny' || decision === 'ask')
          throw new Error(reasonText(specific?.permissionDecisionReason, 'refused by Hermes'));
        if (decision !== undefined && decision !== 'allow')
          throw new Error(
            `Hermes answered a decision the plugin does not know (${String(decision)}), so the call is refused`,
          );
        const updated = specific?.updatedInput;
        if (updated === undefined) return;
        if (updated === null || typeof updated !== 'object' || Array.isArray(updated))
          throw new Error(
            'Hermes rewrote the call into arguments that are not an object, so it is refused',
          );
        // OpenCode runs the call with this very object: its keys are replaced, not the object.
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, updated);
      },

      // OpenCode hands the model `output.output` as this hook leaves it (opencode-ai 1.18.33):
      // transform_tool_result's answer replaces it, and a result that could not be checked is
      // replaced by a refusal, never handed on.
      'tool.execute.after': async (
        input: { tool: string; sessionID: string; callID: string; args: Args },
        output: { output?: unknown; metadata?: Record<string, unknown> },
      ): Promise<void> => {
        const outcome = await ask({
          hook_event_name: 'PostToolUse',
          ...identity(input.sessionID),
          tool_name: input.tool,
          tool_input: input.args ?? {},
          tool_use_id: input.callID,
          tool_response: output.output,
        });
        if ('failure' in outcome) {
          const why = `Hermes could not check this tool's result, so it is withheld: ${outcome.failure}`;
          replaceResult(output, withheld(why));
          return tell(why);
        }
        const { answer } = outcome;
        tell(answer.systemMessage);
        const updated = (answer.hookSpecificOutput as Answer | undefined)?.updatedToolOutput;
        if (typeof updated === 'string') replaceResult(output, updated);
        else if (updated !== undefined)
          replaceResult(
            output,
            withheld('Hermes answered a tool result that is not text, so it is withheld'),
          );
        const context = contextOf(answer);
        if (context !== undefined) nextContext.set(input.sessionID, context);
        if (answer.continue === false) {
          tell(reasonText(answer.stopReason, 'Hermes extensions ended the turn'));
          const id = parents.get(input.sessionID) ?? input.sessionID;
          await ctx.client?.session?.abort?.({ path: { id } }).catch(() => {});
        }
      },
    };
  };
}

/**
 * The command to run: the one install wrote, or the project's own `node_modules/.bin/hermes`
 * (its plugin file is `<root>/.opencode/plugins/…`), which names no path of this machine.
 */
function commandOf(options: HermesPluginOptions): { argv: string[]; missing?: string } {
  if (options.argv.length > 0) return { argv: options.argv };
  const pluginFile = options.pluginUrl ? fileURLToPath(options.pluginUrl) : '';
  const root = dirname(dirname(dirname(pluginFile)));
  const bin = join(root, 'node_modules', '.bin', 'hermes');
  return {
    argv: [bin, 'hook', 'opencode'],
    ...(existsSync(bin)
      ? {}
      : {
          missing: `${bin} is missing: run npm install in ${root} (with hermes-extensions in its devDependencies), or take the plugin out: npx hermes-extensions hook uninstall opencode --project`,
        }),
  };
}

/** Runs one hook process with `event` on stdin; its JSON answer, or what went wrong. */
function runHook(
  command: { argv: string[]; missing?: string },
  event: Args,
  options: HermesPluginOptions,
): Promise<Outcome> {
  if (command.missing !== undefined) return Promise.resolve({ failure: command.missing });
  const [program, ...args] = command.argv as [string, ...string[]];
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: String(event.cwd) });
    } catch (error) {
      return done({ failure: cannotStart(program, error) });
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({
        failure: `${command.argv.join(' ')} did not answer within ${timeoutMs / 1000} s (hermes extensions doctor checks the setup)`,
      });
    }, timeoutMs);
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => done({ failure: cannotStart(program, error) }));
    child.on('close', (code) => {
      if (code !== 0) {
        const said = stderr.trim().split('\n').slice(-3).join(' ');
        return done({
          failure: `${command.argv.join(' ')} ended with exit code ${code} and no answer${said ? `: ${said}` : ''} (hermes extensions doctor checks the setup)`,
        });
      }
      if (stdout.trim() === '') return done({ answer: {} });
      try {
        const answer = JSON.parse(stdout) as unknown;
        if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
          throw new Error('not a JSON object');
        done({ answer: answer as Answer });
      } catch (error) {
        done({
          failure: `${command.argv.join(' ')} answered what is not a hook answer (${(error as Error).message})`,
        });
      }
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(JSON.stringify(event));
  });
}

function cannotStart(program: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT' && !existsSync(program))
    return `${program} is missing (Node.js or hermes-extensions moved or was removed): install it again, then run hermes hook install opencode`;
  return `${program} could not be started (${(error as Error).message}): check it, then run hermes hook install opencode again`;
}

/**
 * Puts `text` where OpenCode reads the tool's result for the model (`output`), and where it shows
 * it (`metadata.output`, the shell's output in its interface), so neither keeps what was hidden.
 */
function replaceResult(
  output: { output?: unknown; metadata?: Record<string, unknown> },
  text: string,
): void {
  output.output = text;
  if (typeof output.metadata?.output === 'string') output.metadata.output = text;
}

/** The refusal the model gets in place of a result nobody could check (docs/hosts.md). */
function withheld(reason: string): string {
  return JSON.stringify({
    error: reason,
    blocked_by_extension: true,
    extension: 'hermes-extensions',
  });
}

/** The context an answer gives the model, if any. */
function contextOf(answer: Answer): string | undefined {
  const specific = answer.hookSpecificOutput as Answer | undefined;
  const context = specific?.additionalContext;
  return typeof context === 'string' && context !== '' ? context : undefined;
}

function reasonText(reason: unknown, fallback: string): string {
  return typeof reason === 'string' && reason.trim() !== '' ? reason : fallback;
}

/**
 * Refuses the prompt: OpenCode sends no model request for a prompt whose `chat.message` throws,
 * but tells the user only that the server failed (opencode-ai 1.18.33), so the reason is also
 * written to its standard error, where `opencode run` shows it, and shown as a toast.
 */
async function refusePrompt(ctx: PluginInput, reason: string): Promise<never> {
  process.stderr.write(`hermes-extensions: ${reason}\n`);
  await tellUser(ctx, reason);
  throw new Error(reason);
}

/** What the user should know, shown where OpenCode shows a plugin's messages. */
async function tellUser(ctx: PluginInput, message: string): Promise<void> {
  try {
    await ctx.client?.tui?.showToast?.({ body: { message, variant: 'warning' } });
    await ctx.client?.app?.log?.({
      body: { service: 'hermes-extensions', level: 'warn', message },
    });
  } catch {
    // Only a message: the decision it came with has been acted on already.
  }
}
