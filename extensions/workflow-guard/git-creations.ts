import { basename } from 'node:path';
import { gitApplyCommand, type ShellCommand, type ShellWord } from 'hermes-extensions/policy';
import type { CreationLog } from './creation-log.js';
import { fileCommandCreations } from './file-commands.js';
import { mentionedPaths } from './mentioned-paths.js';
import { patchFileCreations } from './patch-creations.js';

/** A repository address, not a path: `https://…`, `git@host:…`. */
const URL = /^[\w+.-]+:\/\/|^[^/\s]+@[^/\s]+:/;

/**
 * `git mv` as mv; `apply` by its patch files; `clone`, `worktree`, `submodule`, `init` create
 * the folders they name; any other subcommand by the paths its words name.
 */
export function gitCreations(
  log: CreationLog,
  words: readonly ShellWord[],
  command: ShellCommand,
): string | undefined {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (!word.literal) return `\`git ${word.text}\` is only known when it runs`;
    if (!word.value.startsWith('-')) break;
    if (/^(-C|--git-dir|--work-tree)/.test(word.value)) {
      return `\`git ${word.value}\` runs git elsewhere; run it from the folder instead (cd)`;
    }
    if (word.value === '-c') i++;
  }
  const sub = words[i]?.value;
  const rest = words.slice(i + 1);
  if (sub === 'mv') return fileCommandCreations(log, 'mv', rest, command.cwd);
  if (sub === 'apply') return gitApply(log, rest, command);
  if (sub === 'clone' || sub === 'worktree' || sub === 'submodule' || sub === 'init') {
    return gitNewFolders(log, sub, rest, command);
  }
  return mentionedPaths(log, 'git', rest, command.cwd);
}

/** `git apply`: its patch files, read with its strip level and `--directory` (gitApplyCommand). */
function gitApply(log: CreationLog, rest: readonly ShellWord[], command: ShellCommand) {
  const unknown = rest.find((word) => !word.literal);
  if (unknown) return `\`${unknown.text}\` is only known when the command runs (git apply)`;
  if (command.cwd === undefined) return 'git apply runs in a folder that cannot be known';
  // git applies paths from the top of the work tree: the project root.
  const applied = gitApplyCommand(
    command,
    rest.map((word) => word.value),
    command.cwd,
    log.root,
  );
  if (applied.unknown !== undefined) return applied.unknown;
  const base = { lexical: applied.base, physical: applied.base };
  for (const file of applied.files) {
    const problem = patchFileCreations(log, file, command.cwd, base, 'git apply', applied.reading);
    if (problem) return problem;
  }
  return undefined;
}

function gitNewFolders(
  log: CreationLog,
  sub: string,
  rest: readonly ShellWord[],
  command: ShellCommand,
) {
  const unknown = rest.find((word) => !word.literal);
  if (unknown) return `\`${unknown.text}\` is only known when the command runs (git ${sub})`;
  const given = rest.map((word) => word.value).filter((value) => !value.startsWith('-'));
  // `git worktree add PATH`, `git submodule add URL PATH`: the first word is the action.
  const operands = sub === 'worktree' || sub === 'submodule' ? given.slice(1) : given;
  for (const operand of operands.filter((value) => !URL.test(value))) {
    const problem = log.add(operand, command.cwd, true, `git ${sub}`);
    if (problem) return problem;
  }
  // `git clone URL` alone: the folder is named after the repository.
  const [only] = operands;
  if ((sub === 'clone' || sub === 'submodule') && operands.length === 1 && only) {
    const name = basename(only.replace(/\/+$/, '')).replace(/\.git$/, '');
    return log.add(name, command.cwd, true, `git ${sub}`);
  }
  return undefined;
}
