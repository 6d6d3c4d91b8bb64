/**
 * The framework's own commands that change protected ground (docs/trust.md, Protected ground):
 * `extensions trust|enable|disable|approvals|init|uninstall|resume` (and their short forms: `hermes
 * trust`), `hook install|uninstall` and `mcp install|uninstall`, however the program is reached (`hermes`,
 * `hermes-extensions`, `npx hermes-extensions@1`, `npm exec`, a path to `bin/hermes.js`). The text is read as words, not parsed as a shell line: the command
 * may sit in `sh -c '…'`, behind `xargs`, `env` or `timeout`, in a `python3 -c` string, or in a
 * line the shell parser refuses, and is found in all of them. A line that only mentions one is
 * refused too, unless it is made only of programs known to only read and writes no file
 * (protected/judge.ts): `grep "hermes extensions trust" docs` runs nothing.
 */
const SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  // `resume` lifts the kill switch (docs/teams.md): only the user may. `pause` is not here: an
  // agent that stops itself does no harm.
  extensions: new Set(['trust', 'enable', 'disable', 'approvals', 'init', 'uninstall', 'resume']),
  hook: new Set(['install', 'uninstall']),
  // They write the MCP clients' configs (protected ground): wrap and unwrap servers.
  mcp: new Set(['install', 'uninstall']),
};

/** The framework's program, by the last segment of the word naming it. */
const PROGRAM = /^(?:hermes|hermes-extensions)(?:\.[cm]?js)?(?:@[^/\s]*)?$/;

/** Words end at white space, quotes and the shell's operators. */
const SEPARATORS = /[\s'"`;|&()<>{}[\],=\\]+/;

/** The first framework command in `text` that changes protected ground (`hermes extensions trust`), or undefined. */
export function protectedHermesCommand(text: string): string | undefined {
  const lower = text.toLowerCase();
  if (!lower.includes('hermes')) return undefined;
  const words = lower.split(SEPARATORS).filter((word) => word !== '');
  for (let at = 0; at < words.length; at++) {
    const word = words[at] as string;
    const name = word.slice(word.lastIndexOf('/') + 1);
    if (!PROGRAM.test(name)) continue;
    // The short form (`hermes trust` is `hermes extensions trust`, src/cli/main.ts): the first
    // word after the program that is not an option nor `--cwd`'s value.
    const first = words.slice(at + 1).find((later, i, rest) => {
      return !later.startsWith('-') && rest[i - 1] !== '--cwd';
    });
    if (first !== undefined && SUBCOMMANDS.extensions?.has(first))
      return `hermes extensions ${first}`;
    // Options (and their values: `--cwd DIR`) may stand between the program, the group and
    // the subcommand, so the group is looked for in the words that follow.
    for (let next = at + 1; next < words.length; next++) {
      const subcommands = SUBCOMMANDS[words[next] as string];
      if (subcommands === undefined) continue;
      const sub = words
        .slice(next + 1)
        .find((later, i, rest) => !later.startsWith('-') && rest[i - 1] !== '--cwd');
      if (sub !== undefined && subcommands.has(sub)) return `hermes ${words[next]} ${sub}`;
    }
  }
  return undefined;
}
