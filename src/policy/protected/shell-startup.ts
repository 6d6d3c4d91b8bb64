import { join } from 'node:path';
import { namedFolder } from './agent-folders.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A shell's start-up file or folder in a user's home, and the files it hides when it exists. */
export interface StartupPlace {
  path: string;
  what: string;
  /** bash's later choices, read only when this one is missing (ground.ts, `ProtectedPlace.hides`). */
  hides?: readonly string[];
}

const LOGIN =
  "a login shell's start-up file (Codex runs each hook with `$SHELL -lc`, which reads it first)";
const FISH =
  "fish's start-up config and functions (Codex runs each hook with `$SHELL -lc`, which reads them first)";

/** What zsh reads from `$ZDOTDIR` (else the home): `.zshenv` always, the rest as a login shell. */
const ZSH_FILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin', '.zlogout'];

/**
 * What a login shell of `home` reads before it runs a command, and what runs the command's own
 * program (docs/command-hooks.md, Codex): a line written into any of them (`exit 0`, an `unset`, a
 * function named like a command the hook uses) would silence every Codex hook, an answer Codex
 * takes for "allow", and change every shell after. `configHome` and `dataHome` as the environment
 * names them (fish reads its config from `$XDG_CONFIG_HOME/fish`).
 *
 * - bash: the first of `.bash_profile`, `.bash_login`, `.profile` (each usually sources
 *   `.bashrc`), `.bash_logout` when a login shell exits (its output and status come after the
 *   hook's), and the file `$BASH_ENV` names, which a non-interactive bash reads too.
 * - zsh: the five files in `$ZDOTDIR` when the environment sets it, in the home, and in
 *   `$XDG_CONFIG_HOME/zsh`, where a `ZDOTDIR` set inside `~/.zshenv` conventionally points (any
 *   other folder a protected `.zshenv` names is known only by running it: left out).
 * - fish: its whole config folder (config.fish, conf.d/, functions/ that autoload in place of
 *   commands, fish_variables with `fish_user_paths`), and the user's vendor_conf.d and
 *   vendor_functions.d under its data folder.
 * - sh/dash: `.profile` as a login shell; `$ENV` only when interactive, which a hook is not.
 *
 * Left out: files only an interactive shell reads (`.inputrc`, completions), and the system's own
 * (`/etc/profile` and the like), which the user, and so the agent, cannot write.
 */
export function shellStartupPlaces(
  home: string,
  configHome: string,
  dataHome: string,
  env: Env,
): StartupPlace[] {
  const bash = ['.bash_profile', '.bash_login', '.profile'].map((name) => join(home, name));
  const places: StartupPlace[] = bash.map((path, i) => ({
    path,
    what: LOGIN,
    hides: bash.slice(i + 1),
  }));
  for (const name of ['.bashrc', '.bash_logout'])
    places.push({ path: join(home, name), what: LOGIN });
  const bashEnv = namedFolder(env.BASH_ENV);
  if (bashEnv !== undefined) places.push({ path: bashEnv, what: LOGIN });
  const zdotdir = namedFolder(env.ZDOTDIR);
  for (const folder of new Set([
    ...(zdotdir === undefined ? [] : [zdotdir]),
    home,
    join(configHome, 'zsh'),
  ])) {
    for (const name of ZSH_FILES) places.push({ path: join(folder, name), what: LOGIN });
  }
  places.push({ path: join(configHome, 'fish'), what: FISH });
  for (const name of ['vendor_conf.d', 'vendor_functions.d']) {
    places.push({ path: join(dataHome, 'fish', name), what: FISH });
  }
  return places;
}
