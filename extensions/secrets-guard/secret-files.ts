import { readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { type PathBase, resolveProjectPath } from 'hermes-extensions/policy';

/** A glob of file names (`*`, `?`, `**`, `{a,b}`) as a regular expression, case aside. */
export function globRegExp(glob: string): RegExp {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '{') {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) source += '|';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        source += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

interface Pattern {
  given: string;
  /** Matched against the file's name alone, or against its absolute path. */
  name?: RegExp;
  paths?: RegExp[];
}

/** Decides which paths are secret files, by `files` less `allow` (config.ts). */
export class SecretFiles {
  private readonly files: Pattern[];
  private readonly allow: Pattern[];

  constructor(
    private readonly root: string,
    files: readonly string[],
    allow: readonly string[],
  ) {
    this.files = files.map((p) => compile(p, root));
    this.allow = allow.map((p) => compile(p, root));
  }

  /**
   * The pattern that makes `given` a secret file, or undefined: the path as named (`..` taken
   * off) and where it really is (links followed) are each judged, so neither a link named
   * `notes.txt` to `.env` nor `src/../.env` passes.
   */
  secretAt(given: string, from?: string | PathBase): string | undefined {
    if (given === '') return undefined;
    const expanded = given === '~' || given.startsWith('~/') ? homedir() + given.slice(1) : given;
    const start =
      from === undefined
        ? this.root
        : typeof from === 'string'
          ? resolve(this.root, from)
          : from.lexical;
    const lexical = isAbsolute(expanded) ? resolve(expanded) : resolve(start, expanded);
    const real = resolveProjectPath(this.root, given, from).real;
    // A folder is no secret file: Python projects often keep their virtualenv in `.env/`.
    if (isFolder(real)) return undefined;
    for (const path of new Set([lexical, real])) {
      const hit = this.match(path);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }

  /** Whether `given` is a folder, from `from` (default the root), links followed. */
  isFolder(given: string, from?: string | PathBase): boolean {
    return isFolder(resolveProjectPath(this.root, given, from).real);
  }

  /** Whether a file's name alone (a word only known in part when it runs) names a secret file. */
  secretName(name: string): string | undefined {
    const file = name.replace(/\/+$/, '');
    const last = basename(file);
    if (last === '' || last === '.' || last === '..') return undefined;
    return isAbsolute(file) ? this.match(file) : this.match(last, true);
  }

  /**
   * The secret files a glob may expand to: the files of its folder it matches (when the folder
   * is named plainly), else every secret name it could match. The shell's `*` and `?` do not
   * match a leading dot unless the glob says one (or `dotglob` is set: `dots`).
   */
  secretInGlob(glob: string, from: string | undefined, dots: boolean): string | undefined {
    const folder = dirname(glob);
    const last = basename(glob);
    const matcher = globRegExp(last);
    const hidden = dots || last.startsWith('.');
    if (!/[*?[{]/.test(folder)) {
      const at = resolve(
        from ?? this.root,
        folder === '.' ? '' : folder.replace(/^~(?=\/|$)/, homedir()),
      );
      let names: string[] | undefined;
      try {
        names = readdirSync(at);
      } catch {
        names = undefined;
      }
      if (names !== undefined) {
        for (const name of names) {
          if (!matcher.test(name) || (name.startsWith('.') && !hidden)) continue;
          const hit = this.secretAt(resolve(at, name));
          if (hit !== undefined) return hit;
        }
        return undefined;
      }
    }
    // The folder is not known until the command runs: any name the patterns give may be there.
    for (const pattern of this.files) {
      const sample = basename(pattern.given).replace(/\*+/g, 'x').replace(/\?/g, 'x');
      if (matcher.test(sample) && (hidden || !sample.startsWith('.')) && this.secretName(sample))
        return pattern.given;
    }
    return undefined;
  }

  private match(path: string, nameOnly = false): string | undefined {
    const hit = this.files.find((p) => matches(p, path, nameOnly));
    if (hit === undefined) return undefined;
    return this.allow.some((p) => matches(p, path, nameOnly)) ? undefined : hit.given;
  }
}

function matches(pattern: Pattern, path: string, nameOnly: boolean): boolean {
  if (pattern.name !== undefined) return pattern.name.test(basename(path));
  if (nameOnly) return false;
  return pattern.paths?.some((p) => p.test(path)) ?? false;
}

function compile(given: string, root: string): Pattern {
  if (!given.includes('/')) return { given, name: globRegExp(given) };
  const bases = given.startsWith('~/')
    ? homes().map((home) => home + given.slice(1))
    : isAbsolute(given)
      ? [given]
      : [resolve(root, given), resolve(realOr(root), given)];
  return { given, paths: [...new Set(bases)].map(globRegExp) };
}

/** The home folder by name and where it really is (it may be reached through a link). */
function homes(): string[] {
  return [...new Set([homedir(), realOr(homedir())])];
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
