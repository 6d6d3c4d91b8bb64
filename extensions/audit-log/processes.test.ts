import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, verifyAuditChain } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import { distModule, runNodeScript } from '../../test/support/node-script.js';
import { built, root } from '../../test/support/run-bin.js';
import auditLog from './index.js';

const PROCESSES = 4;
const LINES = 3_000;
const MAX_BYTES = 16_384;
// Enough that no rotated file is dropped: every line written must be found.
const KEEP = 500;

/**
 * A host process with audit-log loaded as users load it, writing `LINES` decisions to the
 * project's audit file once `go` exists, and staying until its last one is on disk.
 */
function auditingProcess(home: string, project: string, go: string, name: string) {
  return runNodeScript(`
    import { existsSync, readdirSync, readFileSync } from 'node:fs';
    import { loadRuntime } from ${distModule('index.js')};
    const say = (line) => process.stderr.write(line + '\\n');
    const logger = { debug() {}, info() {}, warn: say, error: say };
    const runtime = await loadRuntime({ cwd: ${JSON.stringify(project)}, home: ${JSON.stringify(home)}, logger });
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    process.stdout.write('ready\\n');
    while (!existsSync(${JSON.stringify(go)})) await sleep(2);
    for (let i = 0; i < ${LINES}; i++) {
      runtime.emit('hook_decision', { session_id: ${JSON.stringify(name)}, seq: i });
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    // The log is written off the agent's path: wait (a while) for the last line to land.
    const last = '"session_id":"${name}","seq":${LINES - 1}';
    // Files are renamed while this reads them: one that went is looked at again next time.
    const read = (f) => { try { return readFileSync(${JSON.stringify(project)} + '/' + f, 'utf8'); } catch { return ''; } };
    const landed = () => readdirSync(${JSON.stringify(project)})
      .filter((f) => f.startsWith('audit.jsonl'))
      .some((f) => read(f).includes(last));
    for (let i = 0; i < 300 && !landed(); i++) await sleep(100);
  `);
}

describe.runIf(built)('audit-log, written by several processes at once', () => {
  it('loses no line, leaves no file over max_bytes and keeps one chain while they rotate it', async () => {
    const auditLog = join(root, 'extensions/audit-log');
    const home = tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(auditLog)}]\n  audit-log:\n    path: audit.jsonl\n    max_bytes: ${MAX_BYTES}\n    keep: ${KEEP}\n`,
    });
    const project = tree({ '.git/HEAD': '' });
    const go = join(home, 'go');
    const writers = Array.from({ length: PROCESSES }, (_, i) =>
      auditingProcess(home, project, go, `p${i}`),
    );
    for (const writer of writers) await writer.printed('ready');
    writeFileSync(go, '');
    for (const writer of writers) expect(await writer.exited, writer.stderr()).toBe(0);
    for (const writer of writers) expect(writer.stderr()).toBe('');

    const files = readdirSync(project).filter((name) => /^audit\.jsonl(\.\d+)?$/.test(name));
    expect(files.length).toBeLessThan(KEEP);
    const seen = new Map<string, number>();
    const oversized: string[] = [];
    for (const name of files) {
      const path = join(project, name);
      if (statSync(path).size > MAX_BYTES) oversized.push(`${name}: ${statSync(path).size} bytes`);
      for (const line of readFileSync(path, 'utf8').split('\n').filter(Boolean)) {
        const { session_id, seq } = JSON.parse(line);
        const key = `${session_id}:${seq}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    }
    const missing: string[] = [];
    for (let p = 0; p < PROCESSES; p++)
      for (let i = 0; i < LINES; i++) if (!seen.has(`p${p}:${i}`)) missing.push(`p${p}:${i}`);
    expect({ missing: missing.length, oversized }).toEqual({ missing: 0, oversized: [] });
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    // One chain, never forked: each writer read the last line's hash and appended under the lock.
    const oldestFirst = files
      .map((name) => ({ name, index: Number(/\.(\d+)$/.exec(name)?.[1] ?? 0) }))
      .sort((a, b) => b.index - a.index)
      .map(({ name }) => ({ path: join(project, name), bytes: readFileSync(join(project, name)) }));
    expect(verifyAuditChain(oldestFirst)).toEqual({
      status: 'ok',
      lines: PROCESSES * LINES,
      unchained: 0,
      from: 0,
      signatures: 'none',
    });
  }, 120_000);
});

describe('audit-log rotation', () => {
  it('gives a line longer than max_bytes a file of its own, and keeps every line', async () => {
    const project = tree();
    const runtime = await createRuntime({
      extensions: [auditLog],
      cwd: project,
      config: { extensions: { 'audit-log': { path: 'audit.jsonl', max_bytes: 200, keep: 10 } } },
      logger: memoryLogger(),
    });
    runtime.emit('hook_decision', { seq: 0 });
    runtime.emit('hook_decision', { seq: 1, reason: 'x'.repeat(300) });
    runtime.emit('hook_decision', { seq: 2 });
    const file = join(project, 'audit.jsonl');
    const seqs = (name: string) =>
      readFileSync(join(project, name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).seq);
    // Written off the agent's path: the last line lands last.
    for (
      let i = 0;
      i < 500 && !(existsSync(file) && readFileSync(file, 'utf8').includes('"seq":2'));
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect([seqs('audit.jsonl.2'), seqs('audit.jsonl.1'), seqs('audit.jsonl')]).toEqual([
      [0],
      [1],
      [2],
    ]);
    expect(statSync(`${file}.1`).size).toBeGreaterThan(200);
  }, 30_000);
});
