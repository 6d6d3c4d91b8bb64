import { randomUUID } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute } from 'node:path';
import {
  type ChainHead,
  type ChainOpening,
  type ChainSigner,
  chainSeqOf,
  ed25519Signer,
  type FileEnd,
  fileEnd,
} from 'hermes-extensions';
import { protectedGround, protectedHit } from 'hermes-extensions/policy';

/**
 * Where the next line of the chain goes on from, read under the log's lock: the file's own last
 * line, or, for an empty file, the last line of the newest rotated one (a writer that rotated and
 * ended before writing). A log that ends with a line not chained (written before chaining, or
 * torn) gets a new chain whose first line names that line's hash; an empty log with nothing
 * before it, a new chain from nothing.
 */
export async function chainFrom(
  end: FileEnd,
  file: string,
  signer: ChainSigner | undefined,
): Promise<{ head: ChainHead | undefined; prev: string | null; opening: ChainOpening }> {
  const start = (prev: string | null) => ({
    head: undefined,
    prev,
    opening: {
      chain_id: randomUUID(),
      ...(signer === undefined ? {} : { chain_key: signer.fingerprint }),
    },
  });
  if (end.state === 'chained') return { head: end.head, prev: end.head.hash, opening: {} };
  if (end.state === 'unchained') return start(end.hash);
  const rotated = `${file}.1`;
  const before = await rotatedEnd(rotated);
  if (before?.state === 'chained') {
    return {
      head: before.head,
      prev: before.head.hash,
      opening: { chain_previous_file: basename(rotated) },
    };
  }
  return start(before?.state === 'unchained' ? before.hash : null);
}

async function rotatedEnd(path: string): Promise<FileEnd | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    return await fileEnd(handle);
  } finally {
    await handle.close();
  }
}

/**
 * The `chain_seq` the oldest rotated file still kept begins with, once `rotate` has run: what
 * the new file's first line records, so that a verifier finds an oldest file deleted by hand
 * apart from one rotation dropped. Undefined when that file begins with a line not chained.
 */
export async function keptFrom(file: string, keep: number): Promise<number | undefined> {
  for (let i = keep; i >= 1; i--) {
    const handle = await open(`${file}.${i}`, 'r').catch(() => undefined);
    if (handle === undefined) continue;
    try {
      const chunk = Buffer.alloc(64 * 1024);
      const parts: Buffer[] = [];
      for (let position = 0; ; ) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
        parts.push(Buffer.from(chunk.subarray(0, newline < 0 ? bytesRead : newline)));
        if (newline >= 0) break;
        position += bytesRead;
      }
      return chainSeqOf(Buffer.concat(parts));
    } finally {
      await handle.close();
    }
  }
  return undefined;
}

/**
 * The signer of `signing_key`: an Ed25519 private key (PEM) at an absolute path (or `~/…`) on
 * protected ground — `$HERMES_HOME`, the managed location — where no tool call of the agent may
 * write it. Throws, saying what to do, for any other path or key. Only the user's (or the
 * managed) config may name it: the runtime drops it from a project's (load-runtime.ts).
 */
export async function loadSigner(path: string, projectRoot: string): Promise<ChainSigner> {
  const given = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  if (!isAbsolute(given)) {
    throw new Error(
      `signing_key ${path} is not an absolute path: name the key file in full (or from ~/)`,
    );
  }
  if (protectedHit(protectedGround(projectRoot), given) === undefined) {
    throw new Error(
      `signing_key ${path} is not on protected ground, where the agent could replace it: keep it in $HERMES_HOME (or the managed config's folder)`,
    );
  }
  try {
    return ed25519Signer(await readFile(given));
  } catch (error) {
    throw new Error(
      `signing_key ${path} is not a usable Ed25519 private key in PEM (${(error as Error).message}); make one with \`openssl genpkey -algorithm ed25519\``,
    );
  }
}
