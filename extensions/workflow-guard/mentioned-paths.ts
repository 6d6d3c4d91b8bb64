import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import type { PathBase, ShellWord } from 'hermes-extensions/policy';
import type { CreationLog } from './creation-log.js';

/** Characters that separate paths inside a word (code, `--out=x`, `of=x`). */
const TOKEN_SEPARATORS = /[\s'"`(),;=:<>|&{}[\]]+/;
/** A last segment that reads as a file name (`x.ts`), not a folder. */
const FILE_NAME = /^[^.].*\.[A-Za-z0-9]{1,8}$/;

/**
 * A program the guard does not know: every path its words name may be created
 * (`node gen.js src/x`, `python -c "open('src/x/a')"`), and a word the shell expands under a
 * module root is unclear.
 */
export function mentionedPaths(
  log: CreationLog,
  name: string,
  words: readonly ShellWord[],
  cwd: PathBase | undefined,
): string | undefined {
  const root = runsInModuleRoot(log, cwd);
  if (root !== undefined) {
    const where = root === '' ? 'a folder only known when it runs' : `the module root ${root}/`;
    return `${name} runs in ${where}, where a folder it makes by a bare name would be a new module the guard cannot see; run it from the project root or from a module's own folder`;
  }
  for (const word of words) {
    if (!word.literal) {
      const problem = expandedUnderRoot(log.moduleRoots, word);
      if (problem) return problem;
    }
    for (const token of word.value.split(TOKEN_SEPARATORS)) {
      if (!token.includes('/')) continue;
      const last = token.replace(/\/+$/, '').split('/').at(-1) ?? '';
      const problem = log.add(token, cwd, !FILE_NAME.test(last), name);
      if (problem) return problem;
    }
  }
  return undefined;
}

function expandedUnderRoot(moduleRoots: readonly string[], word: ShellWord): string | undefined {
  for (const root of moduleRoots) {
    const at = word.text.indexOf(`${root}/`);
    if (at === -1) continue;
    const segment = word.text.slice(at + root.length + 1).split('/')[0] ?? '';
    if (segment === '' || /[$`{*?[]/.test(segment)) {
      return `\`${word.text}\` is only known when the command runs, and may name a new folder under ${root}/`;
    }
  }
  return undefined;
}

/**
 * The module root a program runs right in (by name or where it really is): `cd src && node -e
 * "fs.mkdirSync('x')"` makes src/x with no path the guard could read, so such a call is unclear.
 * In a module's own folder (src/a) a new folder needs a path with `/` (`../x`), which is read.
 * '' for a folder only known when the command runs, which may be one.
 */
function runsInModuleRoot(log: CreationLog, cwd: PathBase | undefined): string | undefined {
  if (log.moduleRoots.length === 0) return undefined;
  // A folder only known when it runs may be a module root ('').
  if (cwd === undefined) return '';
  let realRoot = log.root;
  try {
    realRoot = realpathSync(log.root);
  } catch {}
  const places = [relative(log.root, cwd.lexical), relative(realRoot, cwd.physical)];
  return log.moduleRoots.find((root) => places.includes(root));
}
