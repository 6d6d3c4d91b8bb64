import { isAbsolute } from 'node:path';
import type { PathBase } from 'hermes-extensions/policy';

/** A path a call may create, and whether what it creates there may be a folder. */
export interface Creation {
  path: string;
  /** Where a relative path starts (default: the project root). */
  cwd?: PathBase;
  /** The last segment may be a folder (`mkdir x`, `cp -r a x`), not only a file. */
  folder: boolean;
  /** What creates it, for messages. */
  by: string;
}

/**
 * The paths one shell call may create, gathered while its commands are read. Each reader
 * (file commands, git, patch, other programs) adds to it and returns a problem when what a
 * command creates cannot be known.
 */
export class CreationLog {
  readonly creations: Creation[] = [];
  /** The creations that are links (`ln`). */
  links = 0;

  constructor(
    /** The project root (absolute): where a path without a known folder starts. */
    readonly root: string,
    readonly moduleRoots: readonly string[],
  ) {}

  /** Records a path; a relative one from a folder that cannot be known is unclear. */
  add(path: string, cwd: PathBase | undefined, folder: boolean, by: string): string | undefined {
    if (cwd === undefined && !isAbsolute(path)) {
      return `the command creates ${path} from a folder that cannot be known`;
    }
    const who = /^[<>&]/.test(by) ? `the redirection ${by}` : by;
    this.creations.push({ path, ...(cwd ? { cwd } : {}), folder, by: who });
    return undefined;
  }
}
