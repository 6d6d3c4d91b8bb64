import { analyzeShell, STANDARD_STREAMS, shellInvocationOf } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { corpusProject, EXPECTED_REFUSALS, READ_ONLY_CORPUS } from './read-only-corpus.js';

/**
 * Why a command of the corpus is refused, judged as workflow-guard's check-tool.ts judges a
 * shell tool call (every way the call may run, from the project root), or undefined when it
 * passes: shown to only read, writing nothing but standard streams.
 */
function refusal(root: string, command: string): string | undefined {
  const invocation = shellInvocationOf({ command });
  if (invocation.kind === 'unknown') return invocation.reason;
  for (const run of invocation.runs) {
    const analysis = analyzeShell(run, { root, cwd: invocation.cwd });
    if (analysis.kind === 'opaque') return analysis.reason;
    const written = analysis.writes.filter((write) => !STANDARD_STREAMS.has(write.path));
    if (written.length > 0) return `writes ${written.map((write) => write.path).join(', ')}`;
  }
  return undefined;
}

describe('ordinary reading passes without a plan', () => {
  const root = corpusProject();
  const refused = READ_ONLY_CORPUS.flatMap((command) => {
    const reason = refusal(root, command);
    return reason === undefined ? [] : [[command, reason] as const];
  });

  it(`refuses at most 1% of the ${READ_ONLY_CORPUS.length} commands`, () => {
    expect(READ_ONLY_CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(READ_ONLY_CORPUS).size).toBe(READ_ONLY_CORPUS.length);
    expect(refused.length / READ_ONLY_CORPUS.length).toBeLessThanOrEqual(0.01);
  });

  it('refuses exactly the commands listed as refused, for the reasons listed', () => {
    expect(refused.map(([command]) => command)).toEqual(Object.keys(EXPECTED_REFUSALS));
    for (const [command, reason] of refused) expect(reason).toMatch(EXPECTED_REFUSALS[command]);
  });
});
