import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * What src/policy/shell/data-variables.ts says of bash, checked against bash: with a loop
 * variable holding `a[$(touch ran)]` (a file name, a line of a file), which constructs run it.
 * Those the analysis refuses must run it (so the refusal has a reason); those it accepts in the
 * same loop must not.
 */
const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

function runsPayload(body: string): boolean {
  const folder = tree({});
  const line = `for x in 'a[$(touch ran)]'; do arr=(1 2); s=abc; ${body}; done`;
  spawnSync('bash', ['-c', line], { cwd: folder, timeout: 5000 });
  return existsSync(join(folder, 'ran'));
}

const judge = (body: string) =>
  analyzeShell(`for x in plans/*; do ${body}; done`, { root: tree({ 'plans/.keep': '' }) });

describe.skipIf(!hasBash)('a loop variable evaluated as code, against bash', () => {
  const EVALUATES = [
    'echo $((x))',
    'echo $[x]',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'echo ${arr[x]}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'echo ${s:x}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'echo ${!x}',
    '[[ x -eq 1 ]]',
    '[ -v "$x" ]',
    'test -v "$x"',
  ];
  it.each(EVALUATES)('`%s` runs the value, and is refused', (body) => {
    expect(runsPayload(body)).toBe(true);
    expect(judge(body).kind).toBe('opaque');
  });

  const READS = [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'echo "${x%.ts} ${#x} ${x/a/b} ${arr[@]}"',
    '[ "$x" = a ]',
    'wc -c "$x"',
  ];
  it.each(READS)('`%s` only reads the value, and passes', (body) => {
    expect(runsPayload(body)).toBe(false);
    expect(judge(body)).toMatchObject({ kind: 'analyzed' });
  });
});
