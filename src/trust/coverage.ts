import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { insideRelative } from '../fs/paths.js';
import { type FileRecord, recordOf, sortRecords } from './records.js';

/**
 * Bounds on what one project may ask to be fingerprinted: hook code is a few files; thousands, or
 * many megabytes, mean something (a `node_modules`, a repository) that cannot be reviewed.
 */
export const MAX_FILES = 2000;
export const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The files of a project's hook code and config, each hashed once, under the project root's real
 * path. A file that cannot be covered (a link that leads out of the project, an unreadable file,
 * more than the bounds) becomes a problem: a project with problems cannot be trusted.
 */
export class Coverage {
  readonly realRoot: string;
  private readonly records = new Map<string, FileRecord>();
  readonly problems: string[] = [];
  private bytes = 0;

  constructor(readonly root: string) {
    this.realRoot = realpathSync(root);
  }

  get size(): number {
    return this.records.size;
  }

  has(path: string): boolean {
    return this.records.has(path);
  }

  list(): FileRecord[] {
    return sortRecords(this.records.values());
  }

  /** The path of `file` relative to the root, '/'-separated, if its real path is inside the root. */
  relativeOf(file: string): string | undefined {
    return insideRelative(this.realRoot, file);
  }

  /**
   * Adds a file, or every file under a folder (none skipped). With `outside`, a file whose real
   * path is outside the root is recorded by its path from the root (`../…`): one the project's
   * code imports, or one a record lists.
   */
  add(path: string, options: { outside?: boolean } = {}): void {
    // Already covered under this name (a recorded file re-read): nothing to resolve again.
    const named = insideRelative(this.realRoot, path);
    if (named !== undefined && this.records.has(named)) return;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return; // not there (a path named but missing is reported where it is named)
    }
    const rel = this.relativeOf(real) ?? (options.outside ? this.outsidePath(real) : undefined);
    if (rel === undefined) {
      this.problems.push(`${this.display(path)} leads outside the project (to ${real})`);
      return;
    }
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(real);
    } catch (error) {
      this.problems.push(`${this.display(path)} cannot be read: ${(error as Error).message}`);
      return;
    }
    if (stats.isDirectory()) {
      if (rel.startsWith('../')) {
        this.problems.push(`${rel} is a folder outside the project: only files are recorded there`);
        return;
      }
      this.addFolder(real);
      return;
    }
    if (stats.isFile()) this.addFile(real, rel);
  }

  /**
   * A file the bundler read, with the digest of the bytes it read (so what is recorded is what
   * went into the bundle, not a second read). Inside the root, a file already recorded with other
   * bytes changed between the two reads: a problem, trust again.
   */
  addRead(input: { file: string; path: string; size: number; sha256: string }): void {
    const known = this.records.get(input.path);
    if (known !== undefined) {
      if (known.sha256 !== input.sha256) {
        this.problems.push(
          `${input.path} changed while it was being reviewed; run the trust command again`,
        );
      }
      return;
    }
    if (this.records.size >= MAX_FILES) {
      this.tooMuch(`more than ${MAX_FILES} files`);
      return;
    }
    this.bytes += input.size;
    if (this.bytes > MAX_BYTES) {
      this.tooMuch(`more than ${MAX_BYTES / 1024 / 1024} MB`);
      return;
    }
    this.records.set(input.path, { path: input.path, size: input.size, sha256: input.sha256 });
  }

  private outsidePath(real: string): string {
    return relative(this.realRoot, real).split(sep).join('/');
  }

  private addFile(real: string, rel: string): void {
    if (this.records.has(rel)) return;
    if (this.records.size >= MAX_FILES) {
      this.tooMuch(`more than ${MAX_FILES} files`);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(real);
    } catch (error) {
      this.problems.push(`${rel} cannot be read: ${(error as Error).message}`);
      return;
    }
    this.bytes += bytes.length;
    if (this.bytes > MAX_BYTES) {
      this.tooMuch(`more than ${MAX_BYTES / 1024 / 1024} MB`);
      return;
    }
    this.records.set(rel, recordOf(rel, bytes));
  }

  private addFolder(real: string): void {
    let items: Dirent[];
    try {
      items = readdirSync(real, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (error) {
      this.problems.push(`${this.relativeOf(real)} cannot be listed: ${(error as Error).message}`);
      return;
    }
    for (const item of items) {
      if (this.overflowed) return;
      const child = join(real, item.name);
      if (item.isFile()) {
        // Inside a real folder, a plain file's path is its real path: no need to resolve it.
        this.addFile(child, this.relativeOf(child) as string);
      } else if (item.isDirectory()) {
        this.addFolder(child);
      } else if (item.isSymbolicLink() && isLoop(child, real)) {
        // A link is followed to its target (which must be inside the project), except one to a
        // folder that contains it, which would never end.
        this.problems.push(`${this.relativeOf(child)} is a link to a folder that contains it`);
      } else {
        this.add(child);
      }
    }
  }

  private overflowed = false;

  private tooMuch(what: string): void {
    if (this.overflowed) return;
    this.overflowed = true;
    this.problems.push(
      `the project's hook code is ${what}: it cannot be reviewed (is a node_modules or .git folder among it?)`,
    );
  }

  /** `path` as the user knows it: from the root when inside it. */
  display(path: string): string {
    return insideRelative(this.root, path) ?? insideRelative(this.realRoot, path) ?? path;
  }
}

function isLoop(link: string, parent: string): boolean {
  try {
    const target = realpathSync(link);
    return insideRelative(target, parent) !== undefined;
  } catch {
    return false;
  }
}
