import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { built, type Answer as Run, runBin } from '../support/run-bin.js';

/** The real bin in a child process, with its own $HERMES_HOME and $HOME, and no TTY. */
function hermes(home: string, ...args: string[]): Promise<Run> {
  return runBin(args, { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '' });
}

describe.runIf(built)('hermes extensions test-suite', () => {
  it("runs a scaffold's test as created, with nothing installed in its folder, and fails when it breaks", async () => {
    const home = tree();
    const init = await hermes(home, 'extensions', 'init', 'my-guard');
    expect(init.stdout).toContain('hermes extensions test-suite my-guard');
    const folder = join(home, 'extensions/my-guard');

    const passing = await hermes(home, 'extensions', 'test-suite', 'my-guard', '--cwd', tree());
    // The scaffold's table: one test per case.
    expect(passing.stderr + passing.stdout).toMatch(/Tests\s+7 passed/);
    expect(passing.code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['index.test.ts', 'index.ts']);
    // Not on a terminal: no colour.
    expect(passing.stdout).not.toContain('\u001b[');

    // The handler no longer blocks the denied tool.
    const source = join(folder, 'index.ts');
    writeFileSync(
      source,
      readFileSync(source, 'utf8').replace('return block(`', 'return pass(); (`'),
    );
    const failing = await hermes(home, 'extensions', 'test-suite', '--cwd', tree());
    expect(failing.stdout).toMatch(/Tests\s+1 failed \| 6 passed/);
    // The guard tester's failure: the case, what was expected, what the chain did.
    const said = failing.stdout + failing.stderr;
    expect(said).toContain('intercept_tool_call › block › delete {"path":"a.txt"}');
    expect(said).toContain('expected: block, with a message containing "not allowed"');
    expect(said).toContain('got:      pass (no extension blocked, rewrote, injected or asked)');
    expect(failing.code).toBe(1);
  });

  it('refuses an unknown name, an extension without tests, and an untrusted project', async () => {
    const home = tree({ 'extensions/bare.ts': 'export default {}' });
    const unknown = await hermes(home, 'extensions', 'test-suite', 'nope', '--cwd', tree());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no extension named "nope"/);
    const bare = await hermes(home, 'extensions', 'test-suite', 'bare', '--cwd', tree());
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/"bare" has no test files/);

    const project = tree({ '.git/HEAD': '' });
    await hermes(home, 'extensions', 'init', 'local-guard', '--project', '--cwd', project);
    const untrusted = await hermes(
      home,
      'extensions',
      'test-suite',
      'local-guard',
      '--cwd',
      project,
    );
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toMatch(/not trusted.*hermes extensions trust/);
    expect(existsSync(join(project, '.hermes/extensions/local-guard/node_modules'))).toBe(false);

    // Trusted, then a test file changed: the trusted state holds for the hooks, but running the
    // tests would run the files as they are now, which nobody reviewed.
    expect((await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project)).code).toBe(0);
    const marker = join(tree(), 'ran');
    write(project, {
      '.hermes/extensions/local-guard/index.test.ts': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\n`,
    });
    const changed = await hermes(home, 'extensions', 'test-suite', 'local-guard', '--cwd', project);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/not trusted as it is now \(it changed since it was trusted\)/);
    expect(existsSync(marker)).toBe(false);
  });
});
