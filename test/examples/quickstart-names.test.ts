import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../support/run-bin.js';

const quickstart = readFileSync(join(root, 'examples', 'quickstart.mjs'), 'utf8');
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);

// A reader runs what the example names: each name must be one that exists, and the script
// that runs the file must be the one that says so.
describe('examples/quickstart.mjs names what exists', () => {
  it('names only npm scripts package.json has', () => {
    const named = [...quickstart.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(scripts, `npm run ${name}`).toContain(name);
  });

  it('is named by the script that runs it', () => {
    const runs = quickstart.match(/`npm run ([\w:-]+)` runs it/)?.[1];
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(runs).toBeDefined();
    expect(pkg.scripts[runs as string]).toBe('node examples/quickstart.mjs');
  });
});
