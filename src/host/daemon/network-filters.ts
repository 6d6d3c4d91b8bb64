import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Logger } from '../../log/logger.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { FILTER_SOCKET, filterDir, filterDomains } from '../../policy/sandbox/network-filter.js';

/** More sets of domains than this at once, and the next is refused (its lines fail). */
const MAX_FILTERS = 16;

/**
 * The sandbox's network filters the hook daemon keeps (docs/policy.md, What runs where): one
 * process per set of allowed domains (network-filter-process.ts), started when a runtime thread
 * first makes a line pointed at it and kept until the daemon ends. What a thread asks is checked
 * here: a state folder named by an absolute path, domains that are strings.
 */
export class NetworkFilters {
  readonly #running = new Map<string, ChildProcess>();
  readonly #log: Logger;
  readonly #entry: string;
  #closed = false;

  constructor(
    log: Logger,
    entry = join(PACKAGE_ROOT, 'dist/host/daemon/network-filter-process.js'),
  ) {
    this.#log = log;
    this.#entry = entry;
  }

  /** Keeps a filter running for `domains` in `stateDir` (network-filter.ts). */
  want(stateDir: unknown, domains: unknown): void {
    if (this.#closed || typeof stateDir !== 'string' || !isAbsolute(stateDir)) return;
    if (!Array.isArray(domains) || !domains.every((d) => typeof d === 'string' && d !== '')) return;
    const set = filterDomains(domains);
    if (set.length === 0) return;
    const dir = filterDir(stateDir, set);
    if (this.#running.has(dir)) return;
    if (this.#running.size >= MAX_FILTERS) {
      this.#log.warn(
        `hermes daemon: ${MAX_FILTERS} sandbox network filters run already; none for ${set.join(', ')}`,
      );
      return;
    }
    if (!existsSync(this.#entry)) {
      this.#log.error(`hermes daemon: the sandbox's network filter is not built (${this.#entry})`);
      return;
    }
    // An IPC channel: it closes when the daemon ends, however it ends, and the filter with it.
    const child = spawn(process.execPath, [this.#entry, dir, JSON.stringify(set)], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.#running.set(dir, child);
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    child.on('message', () =>
      this.#log.info(`hermes daemon: sandbox network filter for ${set.join(', ')} ready`),
    );
    child.on('error', (error) =>
      this.#log.error(`hermes daemon: sandbox network filter: ${error}`),
    );
    child.on('exit', (code, signal) => {
      // Its socket gone with it, however it ended: a line pointed at it fails at once.
      rmSync(join(dir, FILTER_SOCKET), { force: true });
      if (this.#running.get(dir) === child) this.#running.delete(dir);
      if (!this.#closed) {
        this.#log.warn(
          `hermes daemon: the sandbox network filter for ${set.join(', ')} ended (${signal ?? `exit ${code}`})${said === '' ? '' : `: ${said.trim()}`}`,
        );
      }
    });
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  /** Ends every filter (the daemon stops). */
  close(): void {
    this.#closed = true;
    for (const child of this.#running.values()) {
      if (child.connected) child.disconnect();
    }
    this.#running.clear();
  }
}
