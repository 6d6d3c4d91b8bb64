import { type ChildProcess, spawn } from 'node:child_process';
import { root } from './run-bin.js';

const running = new Set<ChildProcess>();

/**
 * Kills the scripts still running, after each test (test/support/each-file.ts): a test that fails
 * half-way must not leave a process holding a lock behind it.
 */
export function killScripts(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** The built package's module at `path` (below `dist/`), as a script imports it. */
export function distModule(path: string): string {
  return JSON.stringify(new URL(`dist/${path}`, `file://${root}/`).href);
}

export interface NodeScript {
  child: ChildProcess;
  /** Resolves once the script has printed `line` on a line of its own. */
  printed(line: string): Promise<void>;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals>;
  stdout(): string;
  stderr(): string;
}

/** An ES module script run as a real Node process; killed after the test if still running. */
export function runNodeScript(source: string, env: Record<string, string> = {}): NodeScript {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  const waiting: Array<{ line: string; resolve: () => void }> = [];
  const check = () => {
    const lines = out.split('\n');
    for (const wait of waiting.splice(0)) {
      if (lines.includes(wait.line)) wait.resolve();
      else waiting.push(wait);
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    check();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal as NodeJS.Signals));
    });
  });
  return {
    child,
    printed: (line) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ line, resolve });
        check();
        void exited.then(() => {
          if (!out.split('\n').includes(line))
            reject(new Error(`the script ended without printing "${line}": ${err}`));
        });
      }),
    exited,
    stdout: () => out,
    stderr: () => err,
  };
}
