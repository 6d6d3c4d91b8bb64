import { rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import {
  acquireOwnedLock,
  CHAIN_FIELDS,
  type ChainHead,
  type ChainOpening,
  type ChainSigner,
  chainLine,
  defineExtension,
  fileEnd,
  lineHash,
  type ObserverPayload,
} from 'hermes-extensions';
import { z } from 'zod';
import { chainFrom, keptFrom, loadSigner } from './chain.js';
import { openLog, realFolders } from './files.js';
import { recordUnwritten } from './unwritten.js';

/** Between a failed write and the next try, when no new line comes first. */
const RETRY_MS = 1_000;
/** Lines kept in memory for the next try at most. */
const KEPT = 1_000;

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
  /**
   * An Ed25519 private key (PEM) to sign every line with: an absolute path on protected ground.
   * Read from the user's or the managed config only; a project's is dropped (load-runtime.ts).
   */
  signing_key: z.string().min(1).optional(),
});

/** A payload's own fields of these names would be taken for the chain's: they are left out. */
function withoutChainFields(payload: ObserverPayload): ObserverPayload {
  if (!CHAIN_FIELDS.some((name) => name in payload)) return payload;
  const own: Record<string, unknown> = { ...payload };
  for (const name of CHAIN_FIELDS) delete own[name];
  return own as ObserverPayload;
}

/**
 * The audit trail a team keeps of what its guards did: every `hook_decision`, every tool
 * outcome (`post_tool_call`) and every approval asked and answered, and every subagent started
 * and stopped, as one JSON line, appended in order on a queue of its own so the agent never
 * waits for the disk, and rotated by size. Several processes may write one file (an agent's
 * parallel hook processes, the hook daemon, two agents in one project): each appends under a lock on the
 * file (`<path>.lock`, one that knows its owner, so a writer killed holding it holds nobody up),
 * sizes it as it is on disk, and rotates it under that lock, so no line is lost or torn and no
 * file grows past `max_bytes`; under that lock each line is chained to the one before it
 * (chain.ts, docs/teams.md), so the trail is a hash chain that `hermes extensions audit verify`
 * checks. A write that fails keeps its lines for the next try; those still
 * unwritten when the runtime closes go to the project's `.hermes/audit-log.unwritten.jsonl`
 * (unwritten.ts), which `hermes extensions doctor` reports.
 */
export default defineExtension({
  name: 'audit-log',
  version: '1.1.0',
  description: 'Writes every hook decision and tool outcome as a JSON line, rotated by size',
  configSchema: config,
  async setup(hermes) {
    const file = resolve(hermes.projectRoot, hermes.config.path);
    const { max_bytes: maxBytes, keep } = hermes.config;
    let signer: ChainSigner | undefined;
    if (hermes.config.signing_key !== undefined) {
      const key = hermes.config.signing_key;
      try {
        signer = await loadSigner(key, hermes.projectRoot);
      } catch (error) {
        // The trail comes first: written unsigned, which a verification with the public key
        // reports line by line, and said now.
        hermes.log.error(
          `cannot sign the audit log: ${(error as Error).message}; its lines are written unsigned until this is fixed`,
        );
      }
      // Kept from every sandbox a tool call runs in: a key the agent's commands can read signs
      // nothing they could not forge.
      hermes.denySandboxRead(() => [key.startsWith('~/') ? `${homedir()}${key.slice(1)}` : key]);
    }
    let queue: Promise<void> = Promise.resolve();
    let warned = false;
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
     * Appends `bodies` (O_APPEND) as lines of the chain (chain.ts): each whole in one write with
     * the lines before it that fit, rotating first whenever the next line would take the file
     * past `max_bytes` — the size as the file has it now, since other processes write it too. A
     * line longer than `max_bytes` gets a file of its own. Run under the lock every process
     * writing this file takes, so the hash of the last line read here is still the last line's
     * when the next is appended: two writers never fork the chain.
     */
    const writeRotating = async (bodies: readonly string[], done: { count: number }) => {
      let next = 0;
      let rotated = false;
      let head: ChainHead | undefined;
      let prev: string | null = null;
      let opening: ChainOpening = {};
      while (next < bodies.length) {
        const handle = await openLog(file);
        let rotateFirst = false;
        try {
          let chunk = '';
          if (!rotated) {
            const end = await fileEnd(handle);
            ({ head, prev, opening } = await chainFrom(end, file, signer));
            // A torn last line stays as it is, ended, and the chain goes on after it.
            if (end.state !== 'empty' && end.cut) chunk = '\n';
          }
          const size = (await handle.stat()).size;
          let bytes = Buffer.byteLength(chunk);
          while (next < bodies.length) {
            const seq = head === undefined ? 0 : head.seq + 1;
            const line = `${chainLine(bodies[next] as string, seq, prev, opening, signer)}\n`;
            const lineBytes = Buffer.byteLength(line);
            const fits = size + bytes === 0 || size + bytes + lineBytes <= maxBytes;
            // A rotation that left the file (it could not be renamed) does not stop the trail.
            if (!fits && !(rotated && bytes === 0)) break;
            chunk += line;
            bytes += lineBytes;
            head = { seq, hash: lineHash(line.slice(0, -1)) };
            prev = head.hash;
            opening = {};
            next++;
          }
          if (bytes > 0) await handle.appendFile(chunk);
          done.count = next;
          rotateFirst = next < bodies.length;
        } finally {
          await handle.close();
        }
        rotated = rotateFirst;
        if (rotateFirst) {
          await rotate();
          const kept = keep === 0 ? (head?.seq ?? -1) + 1 : await keptFrom(file, keep);
          opening = {
            ...(keep === 0 ? {} : { chain_previous_file: `${basename(file)}.1` }),
            ...(kept === undefined ? {} : { chain_kept_from: kept }),
          };
        }
      }
    };

    /** Writes `bodies`, counting in `done` those on the disk (a failure may come half-way). */
    const write = async (bodies: readonly string[], done: { count: number }) => {
      // Every flush, just before the lock, the open and any rotation in that folder.
      await realFolders(hermes.projectRoot, file);
      // Waiting costs the agent nothing (lines wait in memory, off its path), and a busy machine
      // with several writers can keep one waiting a while. No line is written without the lock:
      // one appended beside another writer's would fork the chain. A wait that runs out fails
      // this write, whose lines are kept and written again like any other.
      const lock = await acquireOwnedLock(`${file}.lock`, { retryMs: 2, timeoutMs: 60_000 });
      try {
        await writeRotating(bodies, done);
      } finally {
        lock.release();
      }
    };

    let closed = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let lastError = '';
    const flush = async () => {
      const lines = pending.splice(0);
      if (lines.length === 0) return;
      const done = { count: 0 };
      try {
        await write(lines, done);
      } catch (error) {
        // Kept, in order, for the next flush, and tried again soon even if no line comes: a
        // failure that passes (a lock freed, a disk with room again) loses nothing. What is left
        // at the end is recorded apart (onClose), never dropped.
        lastError = (error as Error).message;
        pending.unshift(...lines.slice(done.count));
        // A failure that lasts (a daemon's runtime lives for hours) must not grow without end:
        // past KEPT lines, the oldest are kept apart now.
        if (pending.length > KEPT) {
          await recordUnwritten(hermes, file, pending.splice(0, pending.length - KEPT), lastError);
        }
        if (!closed && retry === undefined) {
          retry = setTimeout(() => {
            retry = undefined;
            schedule();
          }, RETRY_MS);
          retry.unref?.();
        }
        throw error;
      }
    };

    const schedule = () => {
      queue = queue.then(flush, flush);
      queue.catch((error: unknown) => {
        if (warned) return;
        warned = true;
        hermes.log.warn(
          `cannot write the audit log ${file}: ${(error as Error).message}; its lines are kept and written again`,
        );
      });
    };

    // Returns the write that takes the line: the runtime knows it is still at work
    // (`observersSettled`, `close`), though the agent never waits for it.
    const record = (payload: ObserverPayload) => {
      pending.push(
        JSON.stringify({ at: new Date().toISOString(), ...withoutChainFields(payload) }),
      );
      schedule();
      return queue.catch(() => {});
    };
    hermes.observe('hook_decision', record);
    hermes.observe('post_tool_call', record);
    // An ask put to a person, and the answer where the host sees it (docs/observing.md).
    hermes.observe('pre_approval_request', record);
    hermes.observe('post_approval_response', record);
    // A subagent's life, so the trail says which agent made each call (docs/observing.md).
    hermes.observe('subagent_start', record);
    hermes.observe('subagent_stop', record);
    // A host that exits right after its last decision still gets every line on the disk; lines
    // that could not be written, after one last try, are recorded apart for `doctor`.
    hermes.onClose(async () => {
      closed = true;
      clearTimeout(retry);
      await queue.catch(() => {});
      if (pending.length > 0) {
        schedule();
        await queue.catch(() => {});
      }
      const left = pending.splice(0);
      if (left.length > 0) await recordUnwritten(hermes, file, left, lastError);
    });
  },
});
