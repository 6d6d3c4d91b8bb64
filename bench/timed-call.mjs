// One child process timed from spawn to exit, its stdin the given input: what the hook benchmarks
// (bench/hook-storm.mjs, bench/soak.mjs) run for each hook call and each `node -e 0` beside it.
import { spawn } from 'node:child_process';

/**
 * `node args…` (or `program args…`) in `cwd` with `env`, `input` on its stdin; resolves its wall
 * time and stdout.
 */
export function timedCall(args, env, input, cwd, program = process.execPath) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { env, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve({ ms, stdout, stderr });
    });
    // A child that exits without reading all of its input (`node -e 0`) closes the pipe under the
    // write: its exit is what is measured, not an error of this process.
    child.stdin.on('error', (error) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(input);
  });
}
