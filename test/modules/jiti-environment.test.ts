import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { moduleLoader } from '../../src/modules/import-module.js';
import { tree } from '../support/fixtures.js';

/**
 * jiti takes a default for each of its options from a `JITI_*` variable. A hook's environment is
 * the agent's, which a cloned repository can set (an agent's project settings name variables for
 * its hooks), so each of those variables is an attempt to change how the user's own TypeScript
 * extensions load. Every option is given by the loader (src/modules/import-module.ts): none of
 * them does anything.
 */
describe("jiti's variables in the hook's environment", () => {
  const set: string[] = [];
  afterEach(() => {
    for (const name of set.splice(0)) delete process.env[name];
  });
  const env = (values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) {
      process.env[name] = value;
      set.push(name);
    }
  };

  /** The user's extension folder, whose entry imports its helper, and a project's stand-in. */
  function folders() {
    const user = tree({
      'guard/index.ts': "import { verdict } from './helper.js';\nexport const answer = verdict;\n",
      'guard/helper.ts': "export const verdict = 'the guard';\n",
      'guard/helper.json': '{ "verdict": "a JSON file beside it" }',
    });
    const marker = join(tree(), 'ran');
    const project = tree({
      'evil.ts': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport const verdict = 'the project';\n`,
    });
    // A fresh cache folder: the loader keeps one jiti per folder, made with the variables of then.
    const loader = moduleLoader(join(tree(), 'jiti'), join(tree(), 'bundles'));
    return { entry: join(user, 'guard/index.ts'), project, marker, loader };
  }

  it("JITI_ALIAS does not send the guard's import to the project's file", async () => {
    const { entry, project, marker, loader } = folders();
    env({ JITI_ALIAS: JSON.stringify({ './helper.js': join(project, 'evil.ts') }) });
    const module = await loader.import(entry);
    expect(module.answer).toBe('the guard');
    expect(existsSync(marker)).toBe(false);
  });

  it('JITI_EXTENSIONS does not change what its import finds', async () => {
    const { entry, loader } = folders();
    env({ JITI_EXTENSIONS: JSON.stringify(['.json']) });
    const module = await loader.import(entry);
    expect(module.answer).toBe('the guard');
  });
});
