import { basename } from 'node:path';

/** One server's entry in an MCP client's config: `command`, `args`, `env`, `type`… as the client reads them. */
export type ServerEntry = Record<string, unknown>;

/** A server the proxy wraps, read back from its entry. */
export interface Wrapped {
  /** The proxy's `--name`; undefined when the line gives none. */
  name: string | undefined;
  /** The wrapped server's command and arguments: the words after `--`. */
  command: string;
  args: string[];
}

/** The framework's program, by the base name of the word naming it (as hermes-commands.ts reads it). */
const PROGRAM = /^(?:hermes|hermes-extensions)(?:\.[cm]?js)?(?:@[^/\s]*)?$/i;

/** The words an entry starts: its command, then its arguments; undefined for a server not started as a program (a URL). */
export function entryWords(entry: ServerEntry): string[] | undefined {
  if (typeof entry.command !== 'string' || entry.command === '') return undefined;
  const args = entry.args === undefined ? [] : entry.args;
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return undefined;
  return [entry.command, ...args];
}

/**
 * The server `entry` wraps in `hermes mcp proxy`, or undefined when it runs no proxy: its words
 * hold the framework's program (`node …/bin/hermes.js`, `hermes`, `npx hermes-extensions`), then
 * `mcp proxy`, then `--` and the server.
 */
export function wrappedServer(entry: ServerEntry): Wrapped | undefined {
  const words = entryWords(entry);
  if (words === undefined) return undefined;
  const program = words.findIndex((word) => PROGRAM.test(basename(word.replaceAll('\\', '/'))));
  if (program < 0 || words[program + 1] !== 'mcp' || words[program + 2] !== 'proxy')
    return undefined;
  const dashes = words.indexOf('--', program + 3);
  if (dashes < 0 || dashes === words.length - 1) return undefined;
  const options = words.slice(program + 3, dashes);
  const at = options.indexOf('--name');
  const name =
    at >= 0 ? options[at + 1] : options.find((word) => word.startsWith('--name='))?.slice(7);
  return {
    name,
    command: words[dashes + 1] as string,
    args: words.slice(dashes + 2),
  };
}

/**
 * `entry` with its command run by the proxy: `argv` (the installed hermes, absolute, and `mcp proxy
 * --name NAME [--cwd DIR]`), `--`, then the command it had. Every other key (`env`, `type`, `cwd`…)
 * stays as it was.
 */
export function wrapEntry(entry: ServerEntry, proxyArgv: readonly string[]): ServerEntry {
  const words = entryWords(entry) as string[];
  const [command, ...args] = proxyArgv;
  return { ...entry, command, args: [...args, '--', ...words] };
}

/** `entry` with the server it wraps started directly again (its other keys kept). */
export function unwrapEntry(entry: ServerEntry, wrapped: Wrapped): ServerEntry {
  return { ...entry, command: wrapped.command, args: wrapped.args };
}
