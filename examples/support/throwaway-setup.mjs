// What the command-hook and bridge examples share: a throwaway project and a throwaway
// $HERMES_HOME whose config.yaml loads the shipped workflow-guard from this repository, as a
// user's own config would (a project's config may only name paths inside the project).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (the package) these examples belong to. */
export const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A project with a git folder and a src/ file, and a home whose config loads workflow-guard. */
export function throwawaySetup() {
  const base = mkdtempSync(join(tmpdir(), 'hermes-example-'));
  const project = join(base, 'project');
  const home = join(base, 'hermes-home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src/app.ts'), 'export {};\n');
  mkdirSync(home, { recursive: true });
  const guard = join(packageRoot, 'extensions/workflow-guard');
  writeFileSync(join(home, 'config.yaml'), `extensions:\n  paths: [${JSON.stringify(guard)}]\n`);
  return { base, project, home };
}
