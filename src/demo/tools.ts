import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Tools } from '../host/types.js';

/**
 * Real file tools over the demo's project copy: what an agent's read, grep, write and edit do,
 * small enough to read. Paths are relative to the project.
 */
export function projectTools(root: string): Tools {
  const at = (path: unknown) => join(root, String(path));
  return {
    read: {
      description: 'Read a file',
      execute: ({ path }) => readFileSync(at(path), 'utf8'),
    },
    grep: {
      description: 'Search files for a pattern',
      execute: ({ pattern, path }) => {
        const re = new RegExp(String(pattern));
        const hits: string[] = [];
        for (const file of walk(at(path ?? '.'))) {
          readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (re.test(line)) hits.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
            });
        }
        return hits.join('\n') || 'no matches';
      },
    },
    write: {
      description: 'Write a file',
      execute: ({ path, content }) => {
        mkdirSync(dirname(at(path)), { recursive: true });
        writeFileSync(at(path), String(content));
        return `wrote ${path}`;
      },
    },
    edit: {
      description: 'Replace a string in a file',
      execute: ({ path, old_string, new_string }) => {
        const text = readFileSync(at(path), 'utf8');
        if (!text.includes(String(old_string))) throw new Error(`old_string not found in ${path}`);
        writeFileSync(at(path), text.replace(String(old_string), String(new_string)));
        return `edited ${path}`;
      },
    },
  };
}

function* walk(dir: string): Generator<string> {
  if (statSync(dir).isFile()) {
    yield dir;
    return;
  }
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    if (item.name.startsWith('.')) continue;
    const path = join(dir, item.name);
    if (item.isDirectory()) yield* walk(path);
    else yield path;
  }
}
