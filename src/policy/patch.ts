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

export function readPatch(text: string): PatchTargets {
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
      const names = gitNames(git[1] as string);
      if (names === undefined) note(`\`${line}\` cannot be read`);
      else paths.push(...names);
      section = { names: new Set(names), link: false, added: [], headed: false };
      continue;
    }
    const rename = RENAME.exec(line);
    if (rename && isPatch) {
      const name = unquote(rename[1] as string);
      paths.push(name);
      if (section) section[/^\S+\s+from/.test(line) ? 'from' : 'to'] = name;
      section?.names.add(name);
      continue;
    }
    // Trimmed, as GNU patch reads an indented patch (its POSIX mode may take this name).
    const index = INDEX.exec(line);
    if (index) {
      close();
      isPatch = true;
      paths.push(index[1] as string);
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
        // git's `a/` and `b/`, stripped as `git apply` and `patch -p1` do.
        paths.push(prefixed ? name.slice(2) : name);
        section?.names.add(prefixed ? name.slice(2) : name);
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

/** `a/x b/y`, quoted or not; undefined when unquoted names hold ` b/` more than once. */
function gitNames(rest: string): string[] | undefined {
  const quoted = /^"((?:[^"\\]|\\.)*)"\s+"((?:[^"\\]|\\.)*)"$/.exec(rest);
  const halves = rest.split(' b/');
  const pair = quoted
    ? [unescapeQuoted(quoted[1] as string), unescapeQuoted(quoted[2] as string)]
    : halves.length === 2
      ? [halves[0] as string, `b/${halves[1]}`]
      : undefined;
  return pair?.map((name) => (/^[ab]\//.test(name) ? name.slice(2) : name));
}

function unquote(name: string): string {
  const match = /^"(.*)"$/.exec(name);
  return match ? unescapeQuoted(match[1] as string) : name;
}

function unescapeQuoted(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
