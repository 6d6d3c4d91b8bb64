import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/**
 * The folder a command runs in. `cd` is followed only where the folder the shell would enter by
 * name (`lexical`, `..` taken off the text as `cd` does) and the one the system resolves
 * (`physical`, links followed) are the same; relative paths resolve from here.
 */
export interface ShellCwd {
  lexical: string;
  physical: string;
}

/** Where the walk stands: a known folder, or undefined once it cannot be known. */
export type State = ShellCwd | undefined;

export function same(a: State, b: State): boolean {
  return (
    a === b ||
    (a !== undefined && b !== undefined && a.physical === b.physical && a.lexical === b.lexical)
  );
}

export function join(a: State, b: State): State {
  return same(a, b) ? a : undefined;
}

/** The folder a command starts in, when it exists. */
export function startCwd(cwd: string): ShellCwd | undefined {
  try {
    const physical = realpathSync.native(cwd);
    return statSync(physical).isDirectory() ? { lexical: resolve(cwd), physical } : undefined;
  } catch {
    return undefined;
  }
}

/** The folder `cd name` enters from `from`, when it exists and its name and real place agree. */
export function enter(from: ShellCwd, name: string): State {
  const lexical = resolve(from.lexical, name);
  try {
    // Not `resolve`: it would take `..` off the text; the system climbs from where links point.
    const physical = realpathSync.native(isAbsolute(name) ? name : `${from.physical}/${name}`);
    if (!statSync(physical).isDirectory()) return undefined;
    // `cd` takes `..` off the name as text; the system climbs from where a link points.
    const byName = realpathSync.native(lexical);
    return byName === physical ? { lexical, physical } : undefined;
  } catch {
    return undefined;
  }
}
