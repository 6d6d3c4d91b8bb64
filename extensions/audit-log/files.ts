import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

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
export async function realFolders(root: string, file: string): Promise<void> {
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
 * The log opened to append (and to read its last line), a regular file only. The log's folder is usually in the project
 * (`.hermes/audit/`), where a cloned repository can commit a symbolic link at its name (to
 * `~/.bashrc`, to another project's file) or a FIFO (opening it to write would wait for a reader
 * forever, and the hook with it): neither is followed or waited on, and the write fails, warned of.
 */
export async function openLog(file: string): Promise<FileHandle> {
  // Read too: the chain goes on from the file's last line (chain.ts).
  const flags =
    constants.O_RDWR |
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
