import { realpathSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import type { ChainOutcome } from '../chain/outcome.js';
import { frozenCopy, isPlainObject, setOwn } from '../hooks/frozen.js';

type Args = Record<string, unknown>;

/**
 * An argument's name without case, `_` or `-` (`file_path`, `filePath` and `FILE-PATH` are one
 * name), as hermes-extensions/policy compares them.
 */
const nameOf = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

/**
 * Top-level argument names whose strings are paths, or lists of paths (docs/hosts.md, What a handler receives): the file and folder arguments of Claude Code's, Codex's and Cursor's file tools, and
 * their common spellings.
 */
const PATH_NAMES: ReadonlySet<string> = new Set(
  [
    'path',
    'file_path',
    'file',
    'filename',
    'notebook_path',
    'target_file',
    'directory',
    'dir',
    'paths',
    'files',
    'file_paths',
  ].map(nameOf),
);

/** The call's arguments as the chain sees them, and how to put its outcome back in the host's form. */
export interface ShownCall {
  args: Args;
  back(outcome: ChainOutcome<Args>): ChainOutcome<Args>;
}

/**
 * The arguments a tool call's handlers see (a deep frozen copy, paths in the one form), and how
 * to put the chain's outcome back in the host's form when a path was shown otherwise.
 */
export interface SeenArgs {
  args: Readonly<Args>;
  back: ShownCall['back'] | undefined;
}

/** Argument names already judged: tools send the same few names on every call. */
const judgedNames = new Map<string, boolean>();

/**
 * The name last judged at each place in a call's arguments, and its judgement: a tool sends its
 * arguments in the same order on every call, so most names are told by one comparison of strings
 * (equal content, whatever the string's origin), without a lookup.
 */
const namesAt: string[] = [];
const judgedAt: boolean[] = [];
const PLACES = 16;

function isPathNameAt(key: string, place: number): boolean {
  if (namesAt[place] === key) return judgedAt[place] as boolean;
  const known = isPathName(key);
  if (place < PLACES) {
    namesAt[place] = key;
    judgedAt[place] = known;
  }
  return known;
}

function isPathName(key: string): boolean {
  let known = judgedNames.get(key);
  if (known === undefined) {
    known = PATH_NAMES.has(nameOf(key));
    // Bounded: a host that makes up names per call must not grow it without end.
    if (judgedNames.size < 1024) judgedNames.set(key, known);
  }
  return known;
}

/**
 * Whether the path could be shown otherwise: it is absolute, or has a `.` segment or a doubled
 * slash. A plain relative path (`src/a.ts`), the common case, costs no more than this test.
 */
function mayChange(path: string): boolean {
  // One pass by hand: tool paths are short, and three searches of the string by the engine's
  // builtins cost more than the path is long.
  const length = path.length;
  let previous = 47; // as if after a slash: a leading `/` or `./` counts
  for (let i = 0; i < length; i++) {
    const code = path.charCodeAt(i);
    if (
      code === 47 /* / */ &&
      (previous === 47 || previous === 46) /* `//` `./`, or a leading `/` */
    ) {
      return true;
    }
    previous = code;
  }
  // A trailing `/.`
  return previous === 46 && length >= 2 && path.charCodeAt(length - 2) === 47;
}

/** How one path argument was shown to the chain, so a rewrite can be put back in the host's form. */
interface Shown {
  key: string;
  /** As the host sent it. */
  sent: unknown;
  /** As the chain saw it. */
  shown: unknown;
}

/**
 * One form for the paths a tool call names, whatever the host (docs/hosts.md, What a handler receives):
 * a file inside the project is project-relative (`src/a.ts`), a file outside it absolute. Claude
 * Code sends every `file_path` absolute, the AI SDK and the bridge whatever the model wrote; a
 * guard that tests `path.startsWith('src/')` must hold in all of them.
 *
 * Only the arguments named like a single path or a list of paths (PATH_NAMES, compared as
 * `argumentName` compares) are changed, and only lexically: `.` segments and doubled slashes go,
 * an absolute path at or under the project root (by its name, or where its links lead) loses the
 * root. A path with a `..` segment is passed as sent: which file it names depends on the links
 * along it, and only a guard that resolves it (`resolveProjectPath` of hermes-extensions/policy)
 * can tell. Nothing is read from disk per call.
 *
 * On the way out each path the chain left as it saw it goes back exactly as the host sent it, and
 * a relative path a handler wrote where the host sent an absolute one is made absolute against the
 * root, so the host runs the call in the form it sent.
 */
export class ToolCallPaths {
  readonly #root: string;
  #realRoot: string | undefined;

  constructor(projectRoot: string) {
    this.#root = posix.normalize(projectRoot).replace(/(.)\/$/, '$1');
  }

  /** The call as the chain sees it, and how to put its outcome back; undefined when unchanged. */
  shown(args: Args): ShownCall | undefined {
    // The filesystem root (a host started in `/`) holds everything: nothing is "the project".
    if (this.#root === '/') return undefined;
    let changed: Shown[] | undefined;
    for (const key in args) {
      // By name first: a file's content may be long, and is never scanned.
      if (!isPathName(key) || !Object.hasOwn(args, key)) continue;
      const sent = args[key];
      if (typeof sent === 'string' ? !mayChange(sent) : !Array.isArray(sent)) continue;
      const shown = typeof sent === 'string' ? this.#path(sent) : this.#list(sent as unknown[]);
      if (shown === sent) continue;
      if (changed === undefined) changed = [];
      changed.push({ key, sent, shown });
    }
    if (changed === undefined) return undefined;
    const view: Args = { ...args };
    for (const { key, shown } of changed) view[key] = shown;
    return { args: view, back: this.#backOf(args, changed) };
  }

  /**
   * What `intercept_tool_call`'s handlers see: the frozen copy of `args` the chain would make,
   * with the paths `shown` would show. Made in one pass over the arguments, as the copy is made,
   * so a call whose paths are already in the one form (the common case) costs the copy and one
   * look at each argument's name.
   */
  seen(args: Args): SeenArgs {
    // Arguments that are not a plain object (a host's class instance) keep the two steps.
    if (this.#root === '/' || !isPlainObject(args)) {
      const shown = this.shown(args);
      return { args: frozenCopy(shown === undefined ? args : shown.args), back: shown?.back };
    }
    const copy: Args = {};
    let changed: Shown[] | undefined;
    let place = 0;
    // `for…in` and an own-key test rather than `Object.keys`: no array of names to make (a
    // third of the copy's cost), and the same own keys in the same order.
    for (const key in args) {
      if (!Object.hasOwn(args, key)) continue;
      const sent = args[key];
      let seen = sent;
      if (
        isPathNameAt(key, place++) &&
        (typeof sent === 'string' ? mayChange(sent) : Array.isArray(sent))
      ) {
        seen = typeof sent === 'string' ? this.#path(sent) : this.#list(sent as unknown[]);
        if (seen !== sent) {
          if (changed === undefined) changed = [];
          changed.push({ key, sent, shown: seen });
        }
      }
      // As frozenCopy copies a nested value: one level down (most arguments are strings).
      setOwn(copy, key, seen === null || typeof seen !== 'object' ? seen : frozenCopy(seen, 1));
    }
    Object.freeze(copy);
    return { args: copy, back: changed === undefined ? undefined : this.#backOf(args, changed) };
  }

  /** Unchanged, the outcome's value is the host's own arguments (ChainOutcome's contract); rewritten, a read-only new value in the host's form. */
  #backOf(args: Args, changed: readonly Shown[]): ShownCall['back'] {
    return (outcome) =>
      outcome.changed
        ? { ...outcome, value: Object.freeze(this.#back(outcome.value, changed)) }
        : { ...outcome, value: args };
  }

  #list(sent: unknown[]): unknown[] {
    const shown = sent.map((item) => (typeof item === 'string' ? this.#path(item) : item));
    return shown.some((item, index) => item !== sent[index]) ? shown : sent;
  }

  #path(sent: string): string {
    if (!mayChange(sent) || sent.split('/').includes('..')) return sent;
    const normal = posix.normalize(sent);
    if (!isAbsolute(normal)) return normal === sent ? sent : normal;
    return this.#below(this.#root, normal) ?? this.#below(this.#real(), normal) ?? normal;
  }

  #below(root: string, path: string): string | undefined {
    if (path === root || path === `${root}/`) return '.';
    return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
  }

  /** The root with its links resolved (an agent may name files by either), read once. */
  #real(): string {
    if (this.#realRoot === undefined) {
      try {
        this.#realRoot = realpathSync.native(this.#root);
      } catch {
        this.#realRoot = this.#root;
      }
    }
    return this.#realRoot;
  }

  #back(value: Args, shownPaths: readonly Shown[]): Args {
    const out: Args = { ...value };
    for (const { key, sent, shown } of shownPaths) {
      if (!Object.hasOwn(value, key)) continue;
      const now = value[key];
      if (now === shown) out[key] = sent;
      else if (Array.isArray(now) && Array.isArray(sent) && Array.isArray(shown)) {
        out[key] = now.map((item, index) =>
          item === shown[index] ? sent[index] : this.#hostForm(item, sent[index]),
        );
      } else out[key] = this.#hostForm(now, sent);
    }
    return out;
  }

  /** A path a handler wrote, in the form the host sent: absolute if it sent an absolute path. */
  #hostForm(written: unknown, sent: unknown): unknown {
    if (typeof written !== 'string' || typeof sent !== 'string' || !isAbsolute(sent))
      return written;
    if (isAbsolute(written) || written === '') return written;
    return posix.join(this.#root, written);
  }
}
