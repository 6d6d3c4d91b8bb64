import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { acquireOwnedLock, defineExtension, type ObserverPayload } from 'hermes-extensions';
import { z } from 'zod';

const config = z.object({
  /** The audit file (JSON lines), relative to the project root. */
  path: z.string().min(1).default('.hermes/audit/audit.jsonl'),
  /** Rotate when the file would grow past this many bytes. */
  max_bytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Rotated files kept (`audit.jsonl.1` is the newest). */
  keep: z.number().int().min(0).default(5),
});

/**
 * The audit trail a team keeps of what its guards did: every `hook_decision`, every tool
 * outcome (`post_tool_call`) and every approval asked and answered, and every subagent started and stopped, as one JSON line, appended in order on a queue of its own so the
 * agent never waits for the disk, and rotated by size. Several processes may write one file (an
 * agent's parallel hook processes, two agents in one project): each appends under a lock on the
 * file (`<path>.lock`, one that knows its owner, so a writer killed holding it holds nobody up),
 * sizes it as it is on disk, and rotates it under that lock, so no line is lost or torn and no
 * file grows past `max_bytes`.
 */
export default defineExtension({
  name: 'audit-log',
  version: '1.0.0',
  description: 'Writes every hook decision and tool outcome as a JSON line, rotated by size',
  configSchema: config,
  setup(hermes) {
    const file = resolve(hermes.projectRoot, hermes.config.path);
    const { max_bytes: maxBytes, keep } = hermes.config;
    let queue: Promise<void> = Promise.resolve();
    let warned = false;
    let warnedLock = false;
    /** Lines recorded and not yet written: each write takes all there are. */
    const pending: string[] = [];

    const rotate = async () => {
      if (keep === 0) {
        await rm(file, { force: true });
      } else {
        await rm(`${file}.${keep}`, { force: true });
        for (let i = keep - 1; i >= 1; i--)
          await rename(`${file}.${i}`, `${file}.${i + 1}`).catch(() => {});
        await rename(file, `${file}.1`).catch(() => {});
      }
    };

    /**
     * Appends `lines` (O_APPEND), each whole in one write with the lines before it that fit,
     * rotating first whenever the next line would take the file past `max_bytes` — the size as
     * the file has it now, since other processes write it too. A line longer than `max_bytes`
     * gets a file of its own. Run under the lock every process writing this file takes.
     */
    const writeRotating = async (lines: readonly string[]) => {
      let next = 0;
      let rotated = false;
      while (next < lines.length) {
        const handle = await openLog(file);
        let rotateFirst = false;
        try {
          const size = (await handle.stat()).size;
          let chunk = '';
          let bytes = 0;
          while (next < lines.length) {
            const line = lines[next] as string;
            const lineBytes = Buffer.byteLength(line);
            const fits = size + bytes === 0 || size + bytes + lineBytes <= maxBytes;
            // A rotation that left the file (it could not be renamed) does not stop the trail.
            if (!fits && !(rotated && bytes === 0)) break;
            chunk += line;
            bytes += lineBytes;
            next++;
          }
          if (bytes > 0) await handle.appendFile(chunk);
          rotateFirst = next < lines.length;
        } finally {
          await handle.close();
        }
        rotated = rotateFirst;
        if (rotateFirst) await rotate();
      }
    };

    const flush = async () => {
      const lines = pending.splice(0);
      if (lines.length === 0) return;
      // Every flush, just before the lock, the open and any rotation in that folder.
      await realFolders(hermes.projectRoot, file);
      let lock: Awaited<ReturnType<typeof acquireOwnedLock>>;
      try {
        // Waiting costs the agent nothing (lines wait in memory, off its path), and a busy machine
        // with several writers can keep one waiting a while: a long wait beats a trail that
        // grows past max_bytes.
        lock = await acquireOwnedLock(`${file}.lock`, { retryMs: 2, timeoutMs: 60_000 });
      } catch (error) {
        // The trail comes first: written without rotating, past max_bytes if need be.
        if (!warnedLock) {
          warnedLock = true;
          hermes.log.warn(
            `cannot lock the audit log for rotation (${(error as Error).message}); writing without rotating`,
          );
        }
        const handle = await openLog(file);
        try {
          await handle.appendFile(lines.join(''));
        } finally {
          await handle.close();
        }
        return;
      }
      try {
        await writeRotating(lines);
      } finally {
        lock.release();
      }
    };

    const record = (payload: ObserverPayload) => {
      pending.push(`${JSON.stringify({ at: new Date().toISOString(), ...payload })}\n`);
      queue = queue.then(flush, flush);
      queue.catch((error: unknown) => {
        if (warned) return;
        warned = true;
        hermes.log.warn(`cannot write the audit log ${file}: ${(error as Error).message}`);
      });
    };
    hermes.observe('hook_decision', record);
    hermes.observe('post_tool_call', record);
    // An ask put to a person, and the answer where the host sees it (docs/observing.md).
    hermes.observe('pre_approval_request', record);
    hermes.observe('post_approval_response', record);
    // A subagent's life, so the trail says which agent made each call (docs/observing.md).
    hermes.observe('subagent_start', record);
    hermes.observe('subagent_stop', record);
    // A host that exits right after its last decision still gets every line on the disk; a
    // failed write was reported when it failed.
    hermes.onClose(() => queue.catch(() => {}));
  },
});

/**
 * Makes the log's folder, and refuses it unless every folder from the project root down to it is
 * a real folder: a cloned repository can commit `.hermes` or `.hermes/audit` as a symbolic link
 * to a folder of its choosing (the user's home), and the log, written by the user's own guard even
 * in a project not trusted, would be created and appended there. Each folder is made alone (no
 * `mkdir -p`, which follows a link) and checked with `lstat`, on every flush just before the
 * log is locked, opened and rotated. Chosen over comparing the parent's realpath with its
 * lexical path because it also keeps `mkdir` from making folders through a link; Node has no
 * `openat`, so a folder swapped for a link between the check and the open (a window of a few
 * system calls) is not excluded — winning it takes a process racing inside the project, not a
 * file committed to it. A path outside the project (the user's own config names it) is the
 * user's choice and is followed.
 */
async function realFolders(root: string, file: string): Promise<void> {
  const path = relative(root, dirname(file));
  if (path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) {
    await mkdir(dirname(file), { recursive: true });
    return;
  }
  let folder = root;
  for (const name of path.split(sep).filter(Boolean)) {
    folder = join(folder, name);
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(folder);
    if (info.isSymbolicLink()) {
      const target = await readlink(folder).catch(() => 'somewhere');
      throw new Error(
        `${folder} is a symbolic link (to ${target}), which the log is never written through; make it a real folder in the project, or name a path outside the project in your own config`,
      );
    }
    if (!info.isDirectory()) throw new Error(`${folder} is not a folder`);
  }
}

/**
 * The log opened to append, a regular file only. The log's folder is usually in the project
 * (`.hermes/audit/`), where a cloned repository can commit a symbolic link at its name (to
 * `~/.bashrc`, to another project's file) or a FIFO (opening it to write would wait for a reader
 * forever, and the hook with it): neither is followed or waited on, and the write fails, warned of.
 */
async function openLog(file: string): Promise<FileHandle> {
  const flags =
    constants.O_WRONLY |
    constants.O_APPEND |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await open(file, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new Error('it is a symbolic link, which the log is never written through');
    if (code === 'ENXIO') throw new Error('it is not a regular file (a FIFO)');
    throw error;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new Error('it is not a regular file (a FIFO, a device or a folder)');
  }
  return handle;
}
