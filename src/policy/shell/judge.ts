import type { ShellCommand } from './script.js';
import type { ShellWord } from './words.js';

/** What a program's rule is told about the command it judges. */
export interface JudgeContext {
  /** The program as named, for messages. */
  program: string;
  command: ShellCommand;
  /** The project root (absolute). */
  root: string;
  /** Records a file the command writes (tee, mkdir): the caller decides whether it may. */
  write(target: ShellWord): string | undefined;
  /**
   * Judges a command another program runs (`env CMD`, `timeout 5 CMD`, `xargs CMD`): the words
   * from its program name on; `moreUnknown` when more words only known at run time are added.
   */
  inner(words: readonly ShellWord[], moreUnknown: boolean): string | undefined;
  /**
   * Judges shell code another shell runs (`bash -c CODE`), starting in the command's folder;
   * `posix` when that shell is sh or dash (posix.ts).
   */
  script(code: string, posix?: boolean): string | undefined;
  /** Words only known at run time will be added to these (`xargs CMD`). */
  moreUnknown: boolean;
}

/**
 * The rule of one program that may run without a plan: undefined when this use of it only
 * reads (its writes, if any, recorded through `context.write`), else why not.
 */
export type ProgramRule = (
  words: readonly ShellWord[],
  context: JudgeContext,
) => string | undefined;
