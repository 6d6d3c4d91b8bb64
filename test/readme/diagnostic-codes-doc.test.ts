import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './doc-blocks.js';

/** The members of the `DiagnosticCode` union, as src/extensions/types.ts declares them. */
function declaredCodes(): string[] {
  const source = readFileSync(join(root, 'src/extensions/types.ts'), 'utf8');
  const union = /export type DiagnosticCode =([\s\S]*?);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1] as string);
}

/** Every `code: 'CODE'` written in a TypeScript file of src/. */
function codesInSource(): string[] {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  const text = files.map((file) => readFileSync(join(root, 'src', file), 'utf8')).join('\n');
  return [...new Set([...text.matchAll(/\bcode: '([A-Z_]+)'/g)].map((m) => m[1] as string))];
}

/** The codes with a row of their own in the page's tables (`| \`CODE\` | …`). */
function documentedCodes(): string[] {
  const page = readFileSync(join(root, 'docs/diagnostic-codes.md'), 'utf8');
  return [...page.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1] as string);
}

describe('docs/diagnostic-codes.md', () => {
  it('has a row for every code of `DiagnosticCode`, and every code src/ makes a diagnostic with', () => {
    const declared = declaredCodes();
    const emitted = codesInSource();
    // The readers find what is there (a renamed type or file would leave them empty).
    expect(declared.length).toBeGreaterThanOrEqual(20);
    expect(emitted.length).toBeGreaterThanOrEqual(10);
    const documented = documentedCodes();
    expect([...declared, ...emitted].filter((code) => !documented.includes(code))).toEqual([]);
  });

  it('documents no diagnostic code that does not exist', () => {
    const known = new Set([...declaredCodes(), 'ERR_HERMES_NOT_TRUSTED']);
    expect(documentedCodes().filter((code) => !known.has(code))).toEqual([]);
  });
});
