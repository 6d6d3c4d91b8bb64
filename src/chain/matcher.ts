import type { ToolPattern } from '../hooks/types.js';

export interface ToolMatcher {
  readonly test: (toolName: string) => boolean;
  /** How the matcher is shown in listings: exact names as they are, patterns as `/src/flags`. */
  readonly display: string[];
}

export function compileToolMatcher(pattern: ToolPattern): ToolMatcher {
  const parts = (Array.isArray(pattern) ? pattern : [pattern]) as Array<string | RegExp>;
  if (parts.length === 0) throw new TypeError('`tools` must name at least one tool');
  const names = new Set<string>();
  const regexps: RegExp[] = [];
  for (const part of parts) {
    if (typeof part === 'string') names.add(part);
    else if (part instanceof RegExp) regexps.push(stateless(part));
    else throw new TypeError(`\`tools\` entries must be strings or RegExps, got ${typeof part}`);
  }
  return {
    test: (toolName) => names.has(toolName) || regexps.some((re) => re.test(toolName)),
    display: parts.map((part) => (typeof part === 'string' ? part : String(part))),
  };
}

/** A `g` or `y` flag would make `test` remember its last position and alternate answers. */
function stateless(re: RegExp): RegExp {
  return re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re;
}
