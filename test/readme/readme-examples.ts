import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The README's example marked `<!-- example: NAME …-->`: the ts block right after the marker. */
export function readmeExample(name: string): string {
  const marker = `<!-- example: ${name}`;
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}" marker`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block?.[1]) throw new Error(`no ts block after the "${marker}" marker`);
  return block[1];
}

/**
 * Writes `source` as `file` where examples are checked: inside the repository, so the project's
 * tsconfig (strict, its `paths`) and its packages apply as they do for the tests. Returns the path.
 */
export function writeExample(file: string, source: string): string {
  const dir = join(root, 'node_modules', '.cache', 'readme-examples');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, source);
  return path;
}

let options: ts.CompilerOptions | undefined;
let previous: ts.Program | undefined;

/** The type errors of the files (written by `writeExample`) under the project's tsconfig. */
export function typeErrors(path: string): string[] {
  options ??= projectOptions();
  // The last program is reused: only the example changes between checks.
  previous = ts.createProgram([path], options, undefined, previous);
  return ts
    .getPreEmitDiagnostics(previous)
    .filter((d) => d.file?.fileName === path)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

function projectOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  return config.options;
}
