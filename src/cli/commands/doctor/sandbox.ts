import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxAvailability } from '../../../policy/sandbox/availability.js';
import { sandboxCommand } from '../../../policy/sandbox/wrap.js';
import type { Check } from './check.js';

/**
 * Whether the OS sandbox works on this machine (extensions/workflow-guard/README.md, The sandbox): the quick checks a guard
 * makes, then one real sandboxed command in a throwaway project that tries a write it may not make
 * and one it may. `needed`: an enabled extension runs shell calls in it (workflow-guard), so a
 * sandbox that does not work is a warning (those calls are refused instead), not only worth knowing.
 */
export function sandboxCheck(needed: boolean): Check {
  const subject = 'sandbox';
  const availability = sandboxAvailability();
  if (!availability.available) {
    return {
      level: needed ? 'warning' : 'info',
      subject,
      message: `shell calls cannot run in the OS sandbox here: ${availability.reason}${needed ? '; workflow-guard refuses the commands it cannot read instead' : ''}`,
      fix: availability.fix,
    };
  }
  let root: string;
  try {
    root = mkdtempSync(join(tmpdir(), 'hermes-doctor-sandbox-'));
  } catch (error) {
    return {
      level: needed ? 'warning' : 'info',
      subject,
      message: `no throwaway project could be made to try the sandbox in: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'make the temporary folder ($TMPDIR) writable',
    };
  }
  try {
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'plans'));
    writeFileSync(join(root, 'src/a.txt'), 'before');
    const line = sandboxCommand('echo changed > src/a.txt; echo written > plans/b.txt', {
      root,
      writable: ['plans/'],
      stateDir: join(root, 'state'),
    });
    if (line.kind !== 'sandboxed') {
      return { level: needed ? 'warning' : 'info', subject, message: line.reason, fix: line.fix };
    }
    const started = performance.now();
    const run = spawnSync('bash', ['-c', line.command], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const ms = Math.round(performance.now() - started);
    const held = readFileSync(join(root, 'src/a.txt'), 'utf8') === 'before';
    const landed = readText(join(root, 'plans/b.txt')) === 'written\n';
    if (held && landed) {
      return {
        level: 'ok',
        subject,
        message: `the OS sandbox works here: a sandboxed command could not write outside its writable folders and could write inside them (${ms} ms)`,
      };
    }
    const said = (run.stderr || run.error?.message || '').trim().split('\n').slice(-1)[0];
    return {
      level: held ? 'warning' : 'error',
      subject,
      message: held
        ? `a sandboxed command could not write its writable folder either${said ? ` (${said})` : ''}: sandboxed commands will fail`
        : 'a sandboxed command changed a read-only file: the OS sandbox does not hold here',
      fix: "set workflow-guard's `sandbox: off` until it works, so such commands are refused instead",
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
