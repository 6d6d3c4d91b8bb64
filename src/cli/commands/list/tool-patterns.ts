import { KNOWN_TOOL_NAMES } from '../../../policy/protected/kinds.js';

/**
 * A handler's tool matcher as `list`'s table shows it. A pattern is written `/source/flags`
 * (src/chain/matcher.ts), and a long one (workflow-guard matches every spelling of each shell tool)
 * would be cut to a few characters no one can read: it is shown instead by the known tool names
 * it matches, and `matched` says so (the table marks the group `~[…]`). A pattern that matches
 * none of them is shown as written. `--json` keeps the matcher as written, whole.
 */
export function readableTools(tools: readonly string[]): { tools: string[]; matched: boolean } {
  let matched = false;
  const shown = tools.flatMap((tool) => {
    const pattern = asPattern(tool);
    const names =
      pattern === undefined ? [] : KNOWN_TOOL_NAMES.filter((name) => pattern.test(name));
    if (names.length === 0) return [tool];
    matched = true;
    return names;
  });
  return { tools: [...new Set(shown)], matched };
}

/**
 * The RegExp a displayed `/source/flags` stands for. A tool named with slashes around it would be
 * read as one too; only its display could change, never what the handler matches.
 */
function asPattern(tool: string): RegExp | undefined {
  const parts = /^\/(.+)\/([a-z]*)$/s.exec(tool);
  if (parts === null) return undefined;
  try {
    return new RegExp(parts[1] as string, (parts[2] as string).replace(/[gy]/g, ''));
  } catch {
    return undefined;
  }
}
