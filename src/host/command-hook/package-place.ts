import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * The project whose `node_modules` holds this package (`<project>/node_modules/hermes-extensions`),
 * or undefined for a copy installed apart from any project (`npm install -g`, nvm's or a user
 * prefix's `lib/node_modules`, which no `package.json` sits beside).
 *
 * What answers the user's hooks is protected ground, except a copy inside the project the agent
 * works in, which is the project's code (docs/trust.md, Protected ground): a user-wide hook that
 * runs such a copy is as open to an agent working in that project as the project is, and it
 * answers for every project. `hermes hook install` says so.
 */
export function projectHoldingPackage(packageRoot: string): string | undefined {
  const parts = packageRoot.split(sep);
  // The outermost: a copy a dependency of the project installed for itself is the project's too.
  const at = parts.indexOf('node_modules');
  if (at <= 0) return undefined;
  const holder = parts.slice(0, at).join(sep) || sep;
  return existsSync(join(holder, 'package.json')) ? holder : undefined;
}
