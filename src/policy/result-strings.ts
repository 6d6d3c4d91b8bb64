/** How deep `mapStrings` follows nested data before it refuses (as `frozenCopy` does). */
const MAX_DEPTH = 100;

/**
 * Every string in `value`, passed through `map`: the one way to redact a tool result whatever
 * form the host gives it in — the reference loop's plain text, the AI SDK's objects, Claude
 * Code's `{stdout, stderr}`, OpenCode's output text (docs/chain-semantics.md, Tool results).
 * Object keys are kept as they are; only string values are mapped. Returns `value` itself when
 * no string changed, so a handler can pass without allocating:
 *
 *   const redacted = mapStrings(event.result, (s) => s.replaceAll(SECRET, '[redacted]'));
 *   return redacted === event.result ? undefined : rewrite(redacted);
 *
 * Throws on data nested deeper than 100 levels (or cyclic): under `transform_tool_result`'s
 * default `onError: 'block'` such a result is refused rather than passed on unread.
 */
export function mapStrings(value: unknown, map: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return map(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) {
    throw new TypeError(`the result is nested more than ${MAX_DEPTH} levels deep (or is cyclic)`);
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const mapped = mapStrings(value[i], map, depth + 1);
      if (mapped !== value[i]) copy ??= value.slice();
      if (copy !== undefined) copy[i] = mapped;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const mapped = mapStrings(item, map, depth + 1);
    if (mapped !== item) copy ??= { ...(value as Record<string, unknown>) };
    if (copy !== undefined) copy[key] = mapped;
  }
  return copy ?? value;
}
