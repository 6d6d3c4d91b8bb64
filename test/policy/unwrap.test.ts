import { parseShell, programName, unwrapCommand } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

function unwrap(line: string) {
  const root = tree({ 'src/a.ts': '' });
  const [command] = parseShell(line, root).commands;
  if (command === undefined) throw new Error(`no command in ${line}`);
  const found = unwrapCommand(command);
  return {
    runs: found.commands.map((c) => [programName(c.command), c.command.args, c.moreUnknown]),
    unclear: found.unclear.map((u) => u.reason),
  };
}

describe('unwrapCommand', () => {
  it.each([
    ['env grep -r x .', 'env'],
    ['/usr/bin/env grep -r x .', 'env'],
    ['command grep -r x .', 'command'],
    ['nice -n 5 grep -r x .', 'nice'],
    ['timeout -s KILL 5 grep -r x .', 'timeout'],
  ])('takes the wrapper off `%s`', (line, wrapper) => {
    expect(unwrap(line)).toEqual({
      runs: [
        [wrapper, expect.any(Array), false],
        ['grep', ['-r', 'x', '.'], false],
      ],
      unclear: [],
    });
  });

  it('follows wrappers inside wrappers, and the code of sh -c and eval', () => {
    expect(unwrap(`timeout 5 bash -c "eval 'nice /bin/grep -r x .'"`).runs).toEqual([
      ['timeout', expect.any(Array), false],
      ['bash', expect.any(Array), false],
      ['eval', ['nice /bin/grep -r x .'], false],
      ['nice', ['/bin/grep', '-r', 'x', '.'], false],
      ['grep', ['-r', 'x', '.'], false],
    ]);
  });

  it('says when xargs adds words only known when it runs', () => {
    expect(unwrap('xargs grep x').runs).toEqual([
      ['xargs', ['grep', 'x'], false],
      ['grep', ['x'], true],
    ]);
  });

  it.each([
    ['$GREP -r x .', /only known when it runs/],
    ['eval "$CODE"', /eval runs `"\$CODE"`/],
    ['eval "grep -r x |"', /cannot parse/],
    ['env -S "grep -r" x', /changes how the program runs/],
    ['env X=1 grep -r x', /sets an environment variable/],
    ['nohup grep -r x .', /does not follow/],
    ['sudo grep -r x .', /does not follow/],
    ['bash script.sh', /without -c/],
  ])('says what it cannot follow: %s', (line, reason) => {
    expect(unwrap(line).unclear).toEqual([expect.stringMatching(reason)]);
  });

  it('names a program by the last part of its path, and not at all when only known later', () => {
    const root = tree();
    const [byPath, dynamic] = parseShell('/usr/local/bin/rg x; "$P" x', root).commands;
    expect(byPath && programName(byPath)).toBe('rg');
    expect(dynamic && programName(dynamic)).toBeUndefined();
  });
});
