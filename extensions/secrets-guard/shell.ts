import { resolve } from 'node:path';
import {
  argvScript,
  parseShell,
  type ShellCommand,
  type ShellWord,
  shellInvocationOf,
  unwrapCommand,
} from 'hermes-extensions/policy';
import type { SecretFiles } from './secret-files.js';

/** A secret file a command names, and how it was found. */
export interface NamedSecret {
  /** The word or text that names it. */
  given: string;
  /** The pattern it matches. */
  pattern: string;
}

/** Programs whose arguments are text they print, never files they open. */
const PRINTERS = new Set(['echo', 'printf']);
/** Words end at white space, quotes, the shell's operators and the punctuation of code. */
const SEPARATORS = /[\s'"`;|&()<>{}[\],=:+\\]+/;

/**
 * The secret file a shell call names, if any. Every word of every command it runs (wrappers
 * such as `sh -c`, `env`, `xargs` taken off) is read as paths from the folder the command runs
 * in, links followed; a glob by the files it may match. What is not followed (a line the parser
 * cannot read, a here-document, a word only known when it runs, a call whose command cannot be
 * found, words `xargs` adds) is read as text: a secret file's name anywhere in it is enough.
 * Words of `echo` and `printf`, and files a redirection only writes, are not reads.
 */
export function shellSecret(
  args: Readonly<Record<string, unknown>>,
  root: string,
  secrets: SecretFiles,
): NamedSecret | undefined {
  const invocation = shellInvocationOf(args);
  if (invocation.kind === 'unknown') return textSecret(JSON.stringify(args), secrets);
  const cwd = resolve(root, invocation.cwd ?? '.');
  for (const run of invocation.runs) {
    const line = typeof run === 'string' ? run : run.join(' ');
    const script = typeof run === 'string' ? parseShell(run, cwd) : argvScript(run, cwd);
    const dots = /dotglob|GLOBIGNORE/.test(line);
    let unclear = !script.parsed || script.problems.length > 0;
    for (const command of script.commands) {
      const found = unwrapCommand(command);
      if (found.unclear.length > 0) unclear = true;
      for (const { command: inner, moreUnknown } of found.commands) {
        // Words it is given when it runs (`xargs cat`) may be what another command printed.
        if (moreUnknown) unclear = true;
        const hit = commandSecret(inner, secrets, dots);
        if (hit === 'unclear') unclear = true;
        else if (hit !== undefined) return hit;
      }
    }
    if (unclear || /<</.test(line)) {
      const hit = textSecret(line, secrets);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

function commandSecret(
  command: ShellCommand,
  secrets: SecretFiles,
  dots: boolean,
): NamedSecret | 'unclear' | undefined {
  const from = command.cwd;
  let unclear = false;
  const words: ShellWord[] = [
    ...(command.program !== undefined ? [command.program] : []),
    ...(PRINTERS.has(command.name) ? [] : command.words),
    ...command.redirects.filter((r) => !r.write || r.operator === '<>').map((r) => r.target),
  ];
  for (const word of words) {
    if (word.literal) {
      for (const token of [word.value, ...word.value.split(SEPARATORS)]) {
        if (token === '') continue;
        const pattern =
          from === undefined ? secrets.secretName(token) : secrets.secretAt(token, from);
        if (pattern !== undefined) return { given: word.text, pattern };
      }
    } else if (word.pattern) {
      const pattern = secrets.secretInGlob(word.value, from?.lexical, dots);
      if (pattern !== undefined) return { given: word.text, pattern };
    } else {
      unclear = true;
      const hit = textSecret(word.text, secrets);
      if (hit !== undefined) return hit;
    }
  }
  return unclear ? 'unclear' : undefined;
}

/** A secret file's name in text that is not read as commands. */
export function textSecret(text: string, secrets: SecretFiles): NamedSecret | undefined {
  for (const token of text.split(SEPARATORS)) {
    if (token === '' || !/[./~_]/.test(token)) continue;
    // From the root, where a token names no folder (a virtualenv in `.env/`), by its name too.
    const pattern =
      secrets.secretAt(token) ?? (secrets.isFolder(token) ? undefined : secrets.secretName(token));
    if (pattern !== undefined) return { given: token, pattern };
  }
  return undefined;
}
