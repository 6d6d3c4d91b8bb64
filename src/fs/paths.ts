import { isAbsolute, relative, sep } from 'node:path';

/** `a/b.ts` for `<base>/a/b.ts`; `''` for base itself; undefined outside base. */
export function insideRelative(base: string, path: string): string | undefined {
  const rel = relative(base, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}
