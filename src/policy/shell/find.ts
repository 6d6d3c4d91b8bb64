import { findExec } from './find-exec.js';
import type { ProgramRule } from './judge.js';
import { unknownWord } from './options.js';
import type { ShellWord } from './words.js';

/** find's tests and actions that only read or print, without a value. */
const PLAIN = new Set([
  '-empty',
  '-executable',
  '-readable',
  '-writable',
  '-nouser',
  '-nogroup',
  '-true',
  '-false',
  '-xdev',
  '-mount',
  '-depth',
  '-follow',
  '-noleaf',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-daystart',
  '-print',
  '-print0',
  '-prune',
  '-quit',
  '-ls',
  '-not',
  '-a',
  '-and',
  '-o',
  '-or',
  '!',
  '(',
  ')',
  ',',
]);

/** find's tests (and `-printf`, which prints) that take one value. */
const VALUED = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-regextype',
  '-type',
  '-xtype',
  '-maxdepth',
  '-mindepth',
  '-size',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-newer',
  '-anewer',
  '-cnewer',
  '-perm',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-links',
  '-inum',
  '-samefile',
  '-lname',
  '-ilname',
  '-used',
  '-fstype',
  '-printf',
]);

/**
 * `find [-H|-L|-P] [-D …] [-O…] PATH… EXPRESSION`: every primary of the expression on the list
 * above (so `-delete`, `-execdir`, `-ok`, `-fprint…` and `-fls` are refused, and so is
 * whatever a later find adds); `-exec` runs a command judged as any other (find-exec.ts).
 */
export const find: ProgramRule = (words, context) => {
  if (context.moreUnknown) return 'find would be given arguments only known when it runs';
  let i = 0;
  const at = () => words[i] as ShellWord;
  for (; i < words.length; i++) {
    const word = at();
    if (!word.literal) break;
    if (['-H', '-L', '-P'].includes(word.value) || /^-O\d$/.test(word.value)) continue;
    if (word.value === '-D') {
      i++;
      continue;
    }
    break;
  }
  // Start points: until the first word that begins an expression.
  for (; i < words.length; i++) {
    const word = at();
    if (word.mayBeOption || (word.literal && ['(', '!', ','].includes(word.value))) break;
    if (!word.literal && !word.pattern) return unknownWord(word);
  }
  for (; i < words.length; i++) {
    const word = at();
    if (!word.literal) return `\`${word.text}\` in find's expression is only known when it runs`;
    const primary = word.value;
    if (PLAIN.has(primary)) continue;
    if (primary === '-exec') {
      const end = findExec(words, i + 1, context);
      if (typeof end === 'string') return end;
      i = end;
      continue;
    }
    if (VALUED.has(primary) || /^-newer[aBcmt][aBcmt]$/.test(primary)) {
      const value = words[++i];
      if (value === undefined) return `find's \`${primary}\` needs a value`;
      if (!value.literal) return unknownWord(value);
      continue;
    }
    return `find's \`${primary}\` is not known to only read`;
  }
  return undefined;
};
