import { isAbsolute } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

type Args = Record<string, unknown>;

/** How a rewrite reaches a call in the Hermes agent: its plugin, through Hermes' middleware. */
const USE_THE_PLUGIN =
  "Hermes' shell hooks run every call as the model wrote it (Hermes 0.19.0 reads no `modify` from a shell hook). The plugin applies rewrites through Hermes' middleware: have the user install it with `hermes hook install hermes-agent --plugin`; until then, send a call that needs no rewrite";

/**
 * The characters Hermes' terminal takes in a `workdir`; a call with any other is refused there
 * (tools/terminal_tool.py, `_validate_workdir` and its allowlist `_WORKDIR_SAFE_RE`).
 */
const HERMES_WORKDIR = /^[A-Za-z0-9/\\:_\-.~ +@=,]+$/;

/**
 * Why a `terminal` call cannot be judged where Hermes will run it, if so. Hermes' terminal runs a
 * command in the call's `workdir` when it names one (tools/terminal_tool.py,
 * `_resolve_command_cwd`: "Explicit workdir= overrides everything"), else where the session's
 * previous command ended (its `pwd -P`, tools/environments/base.py, `_wrap_command`), which no
 * event tells a hook; a relative `workdir` is entered from that same folder, and `~` is the home
 * folder. Only an absolute `workdir` is the folder the call is judged in and runs in, unchanged.
 */
export function terminalUnjudged(input: Args, cwd: string): string | undefined {
  const workdir = input.workdir;
  if (typeof workdir === 'string' && isAbsolute(workdir)) return undefined;
  const named =
    typeof workdir === 'string' && workdir !== ''
      ? `its \`workdir\` ${JSON.stringify(workdir)} is not an absolute path, and Hermes enters it from wherever the previous command left the terminal`
      : 'it names no `workdir`, and Hermes runs it wherever the previous command left the terminal';
  const why = `This terminal call is refused: ${named}, so it cannot be checked where it would run.`;
  if (!HERMES_WORKDIR.test(cwd)) {
    return `${why} The session's folder ${JSON.stringify(cwd)} has a character Hermes refuses in a \`workdir\`, so under Hermes' shell hooks no terminal call can run there: the user can install the plugin (\`hermes hook install hermes-agent --plugin\`), which checks each command in the folder it runs in.`;
  }
  return `${why} Send it again with "workdir": ${JSON.stringify(cwd)} (the session's folder) or another absolute path, and \`cd\` inside the command only for that command.`;
}

/**
 * Every rewrite, described, since the Hermes agent's shell hooks apply none: what it would change
 * (each argument set, and each taken away), then how to have it applied.
 */
export function hermesCannotRewrite(input: Args, args: Args): string {
  const set = Object.keys(args)
    .filter((key) => !isDeepStrictEqual(args[key], input[key]))
    .map((key) => `\`${key}\` to ${shortJson(args[key])}`);
  const dropped = Object.keys(input)
    .filter((key) => !(key in args))
    .map((key) => `without \`${key}\``);
  const change = [...(set.length === 0 ? [] : [`set ${set.join(', ')}`]), ...dropped].join(', ');
  return `the rewrite would ${change === '' ? 'change the call' : change}. ${USE_THE_PLUGIN}.`;
}

/** A value as JSON, cut to what a message can carry. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 300 ? text : `${text.slice(0, 300)}…`;
}
