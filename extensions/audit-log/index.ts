import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { defineExtension, type ObserverPayload } from 'hermes-extensions';
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
 * The audit trail a team keeps of what its guards did: every `hook_decision` and every tool
 * outcome (`post_tool_call`) as one JSON line, appended in order on a queue of its own so the
 * agent never waits for the disk, and rotated by size.
 */
export default defineExtension({
  name: 'audit-log',
  version: '1.0.0',
  description: 'Writes every hook decision and tool outcome as a JSON line, rotated by size',
  configSchema: config,
  setup(hermes) {
    const file = resolve(hermes.projectRoot, hermes.config.path);
    const { max_bytes: maxBytes, keep } = hermes.config;
    let size: number | undefined;
    let queue: Promise<void> = Promise.resolve();
    let warned = false;

    const rotate = async () => {
      if (keep === 0) {
        await rm(file, { force: true });
      } else {
        await rm(`${file}.${keep}`, { force: true });
        for (let i = keep - 1; i >= 1; i--)
          await rename(`${file}.${i}`, `${file}.${i + 1}`).catch(() => {});
        await rename(file, `${file}.1`).catch(() => {});
      }
      size = 0;
    };

    const append = async (line: string) => {
      if (size === undefined) {
        await mkdir(dirname(file), { recursive: true });
        size = (await stat(file).catch(() => undefined))?.size ?? 0;
      }
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > maxBytes) await rotate();
      await appendFile(file, line);
      size += bytes;
    };

    const record = (payload: ObserverPayload) => {
      const line = `${JSON.stringify({ at: new Date().toISOString(), ...payload })}\n`;
      queue = queue.then(
        () => append(line),
        () => append(line),
      );
      queue.catch((error: unknown) => {
        if (warned) return;
        warned = true;
        hermes.log.warn(`cannot write the audit log ${file}: ${(error as Error).message}`);
      });
    };
    hermes.observe('hook_decision', record);
    hermes.observe('post_tool_call', record);
    // A host that exits right after its last decision still gets every line on the disk; a
    // failed write was reported when it failed.
    hermes.onClose(() => queue.catch(() => {}));
  },
});
