/**
 * The files a patch changes, read as tolerantly as the programs that apply patches: Codex's
 * `apply_patch` envelope (`*** Add/Update/Delete File:`, `*** Move to:`; markers compared after
 * trimming, as Codex does, and here without regard to case or spacing), unified diffs (`---`/`+++`
 * headers, git's `diff --git`, `rename`/`copy from|to`), context diffs (`*** NAME` / `--- NAME`
 * headers), and `Index:` lines (GNU patch may take the name from there). Every name any of them
 * could use is listed. `unknown` says why some change cannot be tied to a file: a hunk before
 * any header, a normal diff or ed script (which name no file), a marker line not understood.
 * A git diff also says which files become symbolic links (mode 120000, whose one content line is
 * where the link leads: GNU patch and `git apply` make them) and which files it renames or copies
 * (a link moved keeps its text, which then leads elsewhere): `links` and `moves`.
 *
 * The names are read as a patch tool's argument is (`apply_patch`, a `patch` argument): git's
 * `a/` and `b/` taken off. A patch file that a command applies is read with that command's strip
 * level instead (`PatchReading`): `patch -p0` writes `a/.hermes/config.yaml` as named, `-p2`
 * writes `x/y/.hermes/config.yaml` to `.hermes/config.yaml`, so which files it writes depends on
 * the command as much as on the text.
 */
export interface PatchTargets {
  paths: string[];
  unknown: string | undefined;
  /** Whether the text looked like a patch at all. */
  isPatch: boolean;
  /** The symbolic links the patch makes, or turns a file into. */
  links: PatchLink[];
  /** The renames and copies of a git diff. */
  moves: PatchMove[];
}

/** A symbolic link a patch makes: its path as named, and its text (where it leads from there). */
export interface PatchLink {
  path: string;
  target: string;
}

/** A file a git diff renames or copies. */
export interface PatchMove {
  from: string;
  to: string;
}

/**
 * How the program that applies a patch finds a file from a name in it: `strip` leading folders
 * taken off (`patch -pN`, `git apply -pN`: the smallest prefix holding N slashes; a name with
 * fewer cannot be placed, and is not understood), or `'base'`, GNU patch without `-p`: the file's
 * base name, or (when its folders exist) the name whole; both are listed.
 */
export interface PatchReading {
  strip: number | 'base';
}

/** A git diff's mode of the file after it: `new file mode`, `new mode`, or the `index` line's. */
const NEW_MODE = /^(?:new\s+file\s+mode|new\s+mode|index\s+\S+)\s+([0-7]+)$/i;
/** A link by its file-type bits, as GNU patch and git apply test it: `120755` is a link too. */
const isLinkMode = (mode: string) => (Number.parseInt(mode, 8) & 0o170000) === 0o120000;

/** One `diff --git` section, while it is read. */
interface GitSection {
  /** Every name it gives its file (`diff --git`, `---`/`+++`, `rename to`): GNU patch may take any. */
  names: Set<string>;
  link: boolean;
  added: string[];
  /** Its `---`/`+++` header was read: another one starts a file of a plain diff. */
  headed: boolean;
  from?: string;
  to?: string;
}

const FILE_OP = /^\*{3}\s*(?:add|update|delete)\s+file\s*:\s*(.*?)\s*$/i;
const MOVE_TO = /^\*{3}\s*move\s+to\s*:\s*(.*?)\s*$/i;
const ENVELOPE = /^\*{3}\s*(?:begin\s+patch|end\s+patch|end\s+of\s+file)\s*$/i;
const GIT_DIFF = /^diff\s+--git\s+(.+)$/;
const RENAME = /^(?:rename|copy)\s+(?:from|to)\s+(.+)$/;
const INDEX = /^Index:\s*(.+?)\s*$/;
const UNIFIED_HUNK = /^@@\s/;
const CONTEXT_SEPARATOR = /^\*{15}/;
/** A normal-diff or ed command: `5a6`, `1,3c1,3`, `7d`. */
const ED_COMMAND = /^\d+(?:,\d+)?[acdi](?:\d+(?:,\d+)?)?$/;

export function readPatch(text: string, reading?: PatchReading): PatchTargets {
  const lines = text.split(/\r?\n/);
  const paths: string[] = [];
  let unknown: string | undefined;
  let isPatch = false;
  let current = false; // a file header was seen: hunks have a file
  const links: PatchLink[] = [];
  const moves: PatchMove[] = [];
  let section: GitSection | undefined;
  const note = (reason: string) => {
    unknown ??= reason;
  };
  /**
   * Where a name of the text lands under `reading` (`fewer`: folders fewer to strip, for the
   * names of `rename`/`copy` lines, which carry no `a/`/`b/`).
   */
  const land = (name: string, fewer = 0): string[] => {
    if (reading === undefined) return [name];
    if (reading.strip === 'base') return [...new Set([name, baseName(name)])];
    const stripped = stripFolders(name, Math.max(0, reading.strip - fewer));
    if (stripped === undefined) {
      note(`${name} has fewer than ${reading.strip} folders to strip (-p${reading.strip})`);
      return [];
    }
    return [stripped];
  };
  const close = () => {
    if (section?.from !== undefined && section.to !== undefined) {
      moves.push({ from: section.from, to: section.to });
    }
    if (section?.link) {
      // The link's text is its one content line, as GNU patch and git apply write it.
      const target = section.added.length === 1 ? section.added[0] : undefined;
      for (const path of section.names) {
        if (target !== undefined) links.push({ path, target });
        else note(`the symbolic link ${path} has no one line saying where it leads`);
      }
    }
    section = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    const line = raw.trim();
    const mode = section ? NEW_MODE.exec(line) : null;
    if (mode && section) {
      if (isLinkMode(mode[1] as string)) section.link = true;
      continue;
    }
    if (section && raw.startsWith('+') && !raw.startsWith('+++ ')) {
      // Without `\ No newline at end of file` after it, the line's newline is part of the text.
      const newline = lines[i + 1]?.startsWith('\\') ? '' : '\n';
      section.added.push(raw.slice(1) + newline);
      continue;
    }
    const op = FILE_OP.exec(line) ?? MOVE_TO.exec(line);
    if (op) {
      close();
      isPatch = true;
      current = true;
      if (op[1] === '') note(`\`${line}\` names no file`);
      else paths.push(op[1] as string);
      continue;
    }
    if (ENVELOPE.test(line)) {
      isPatch = true;
      continue;
    }
    const git = GIT_DIFF.exec(line);
    if (git) {
      close();
      isPatch = true;
      current = true;
      const named = gitNames(git[1] as string, reading === undefined);
      const names = named?.flatMap((name) => land(name));
      if (names === undefined) note(`\`${line}\` cannot be read`);
      else paths.push(...names);
      section = { names: new Set(names), link: false, added: [], headed: false };
      continue;
    }
    const rename = RENAME.exec(line);
    if (rename && isPatch) {
      for (const name of land(unquote(rename[1] as string), 1)) {
        paths.push(name);
        if (section) section[/^\S+\s+from/.test(line) ? 'from' : 'to'] = name;
        section?.names.add(name);
      }
      continue;
    }
    // Trimmed, as GNU patch reads an indented patch (its POSIX mode may take this name).
    const index = INDEX.exec(line);
    if (index) {
      close();
      isPatch = true;
      paths.push(...land(index[1] as string));
      continue;
    }
    const next = lines[i + 1]?.trim();
    // Unified header: `--- OLD` then `+++ NEW`; context header: `*** OLD` then `--- NEW`.
    if (
      (line.startsWith('--- ') && next?.startsWith('+++ ')) ||
      (line.startsWith('*** ') && next?.startsWith('--- ') && !CONTEXT_HUNK.test(line))
    ) {
      if (section?.headed) close();
      if (section) section.headed = true;
      isPatch = true;
      current = true;
      const names = [line, next as string].map((header) => headerName(header.slice(4)));
      const prefixed = names.every((n) => n === '/dev/null' || /^[ab]\//.test(n));
      for (const name of names) {
        if (name === '' || name === '/dev/null') continue;
        // git's `a/` and `b/`, stripped as `git apply` and `patch -p1` do (or as `reading` says).
        const landed = reading === undefined ? [prefixed ? name.slice(2) : name] : land(name);
        for (const path of landed) {
          paths.push(path);
          section?.names.add(path);
        }
      }
      i++;
      continue;
    }
    if (UNIFIED_HUNK.test(line) || CONTEXT_SEPARATOR.test(line) || CONTEXT_HUNK.test(line)) {
      isPatch = true;
      if (!current) note(`the hunk \`${line}\` comes before any file header`);
      continue;
    }
    if (ED_COMMAND.test(line)) {
      isPatch = true;
      note(`\`${line}\` is a normal diff or ed command, which names no file`);
      continue;
    }
    if (
      line.startsWith('***') &&
      isPatch &&
      !/^\*{3}\s/.test(line) &&
      !CONTEXT_SEPARATOR.test(line)
    ) {
      note(`the marker \`${line}\` is not understood`);
    }
  }
  close();
  return { paths: [...new Set(paths)], unknown, isPatch, links, moves };
}

/** `*** 1,5 ****` / `--- 1,5 ----`: a context diff's hunk ranges, not a file header. */
const CONTEXT_HUNK = /^(?:\*{3}|-{3})\s+\d+(?:,\d+)?\s+(?:\*{4}|-{4})\s*$/;

/** The name of a `---`/`+++`/`***` header: up to a tab (a timestamp follows), unquoted. */
function headerName(rest: string): string {
  return unquote((rest.split('\t')[0] ?? '').trim());
}

/**
 * `a/x b/y`, quoted or not, `a/` and `b/` taken off unless `unprefix` is false; undefined when
 * unquoted names hold ` b/` more than once.
 */
function gitNames(rest: string, unprefix = true): string[] | undefined {
  const quoted = /^"((?:[^"\\]|\\.)*)"\s+"((?:[^"\\]|\\.)*)"$/.exec(rest);
  const halves = rest.split(' b/');
  const pair = quoted
    ? [unescapeQuoted(quoted[1] as string), unescapeQuoted(quoted[2] as string)]
    : halves.length === 2
      ? [halves[0] as string, `b/${halves[1]}`]
      : undefined;
  return pair?.map((name) => (unprefix && /^[ab]\//.test(name) ? name.slice(2) : name));
}

/** `name` less the smallest prefix holding `count` slashes (runs of slashes count once). */
function stripFolders(name: string, count: number): string | undefined {
  let rest = name;
  for (let i = 0; i < count; i++) {
    const slash = rest.indexOf('/');
    if (slash === -1) return undefined;
    rest = rest.slice(slash + 1).replace(/^\/+/, '');
  }
  return rest === '' ? undefined : rest;
}

function baseName(name: string): string {
  return name.replace(/\/+$/, '').split('/').pop() ?? name;
}

function unquote(name: string): string {
  const match = /^"(.*)"$/.exec(name);
  return match ? unescapeQuoted(match[1] as string) : name;
}

function unescapeQuoted(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
