import { isDeepStrictEqual } from 'node:util';

/**
 * What an approval may be remembered for, as the handler that asked names it
 * (`ask(reason, metadata, { args: { command: 'npm test' } })`): the extension that asked, the
 * tool, and these arguments, each equal to the value named. Arguments not named may be anything;
 * `args: {}` names every call of the tool. An ask without one is never remembered.
 */
export interface RememberScope {
  readonly args: Readonly<Record<string, unknown>>;
}

/** A remembered approval: who asked, about which tool, for which arguments. */
export interface ApprovalGrant {
  extension: string;
  tool: string;
  args: Record<string, unknown>;
}

/** Why `remember` is not a scope, or undefined when it is. */
export function rememberScopeProblem(remember: unknown): string | undefined {
  if (typeof remember !== 'object' || remember === null || Array.isArray(remember)) {
    return 'remember must be an object { args: { <argument>: <value> } }';
  }
  const keys = Object.keys(remember);
  const extra = keys.find((key) => key !== 'args');
  if (extra !== undefined) return `remember has an unknown key "${extra}"; it has only args`;
  const { args } = remember as { args?: unknown };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return 'remember.args must be an object naming each argument and the value it must have';
  }
  try {
    // JSON data only: it is stored, and compared with the arguments as JSON.
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(args)), args)) {
      return 'remember.args must be JSON data (strings, numbers, booleans, null, arrays, objects)';
    }
  } catch {
    return 'remember.args must be JSON data (strings, numbers, booleans, null, arrays, objects)';
  }
  return undefined;
}

/**
 * Whether a grant covers a call: same extension and tool, and each argument the grant names has
 * exactly that value in the arguments that will run (after every rewrite of the chain), so a
 * model cannot widen what a person allowed.
 */
export function grantCovers(
  grant: ApprovalGrant,
  call: { extension: string; tool: string; args: Record<string, unknown> },
): boolean {
  if (grant.extension !== call.extension || grant.tool !== call.tool) return false;
  return Object.entries(grant.args).every(
    ([name, value]) => Object.hasOwn(call.args, name) && isDeepStrictEqual(call.args[name], value),
  );
}

/** One key per grant: what two equal grants share. */
export function grantKey(grant: ApprovalGrant): string {
  return JSON.stringify([grant.extension, grant.tool, sorted(grant.args)]);
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}
