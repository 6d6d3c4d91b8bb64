import { describe, expect, it } from 'vitest';
import { timedCall } from '../../bench/timed-call.mjs';

describe("the benchmarks' timed child process", () => {
  it('takes a child that exits without reading its input (`node -e 0`): no EPIPE, its exit counted', async () => {
    // More than a pipe holds, so the write is still going when the child exits without reading.
    const input = 'x'.repeat(4 << 20);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => timedCall(['-e', '0'], process.env, input)),
    );
    for (const run of runs) expect(run).toMatchObject({ stdout: '', stderr: '' });
  });
});
