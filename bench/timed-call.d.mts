// The types of timed-call.mjs, for test/bench/timed-call.test.ts.

export declare function timedCall(
  args: string[],
  env: Record<string, string | undefined>,
  input: string,
  cwd?: string,
): Promise<{ ms: number; stdout: string; stderr: string }>;
