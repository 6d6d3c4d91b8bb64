/** How deep `mapStrings` follows nested data before it refuses (as `frozenCopy` does). */
const MAX_DEPTH = 100;

/**
 * Every string in `value`, passed through `map`: the one way to redact a tool result whatever
 * form the host gives it in — the reference loop's plain text, the AI SDK's objects, Claude
 * Code's `{stdout, stderr}`, OpenCode's output text (docs/chain-semantics.md, Tool results).
 * String values and object keys are both mapped (a secret can be a key: `{"sk-…": "prod"}`),
 * keys in their order. Returns `value` itself when no string changed, so a handler can pass
 * without allocating:
 *
 *   const redacted = mapStrings(event.result, (s) => s.replaceAll(SECRET, '[redacted]'));
 *   return redacted === event.result ? undefined : rewrite(redacted);
 *
 * Throws — and under `transform_tool_result`'s default `onError: 'block'` the result is then
 * refused rather than passed on unread — when:
 * - two keys of one object map to the same text: merging them would drop a value the redactor
 *   was not asked to drop, so the result is refused instead;
 * - it meets binary data (a Buffer, a typed array, an ArrayBuffer): its bytes are not text it can
 *   map. The hosts decode a tool's binary result to its UTF-8 text before the chain runs, so
 *   this is only met in a result a host of your own passes on undecoded;
 * - data is nested deeper than 100 levels (or is cyclic).
 */
export function mapStrings(value: unknown, map: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return map(value);
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw new TypeError(
      'the result holds binary data (a Buffer, a typed array or an ArrayBuffer), whose bytes are no text to map: decode it to text first',
    );
  }
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
  const record = value as Record<string, unknown>;
  const entries: Array<[string, unknown]> = [];
  const from = new Map<string, string>();
  let changed = false;
  for (const key of Object.keys(record)) {
    const mappedKey = map(key);
    const other = from.get(mappedKey);
    if (other !== undefined) {
      throw new TypeError(
        `keys ${JSON.stringify(other)} and ${JSON.stringify(key)} both map to ${JSON.stringify(mappedKey)}: one value would be lost`,
      );
    }
    from.set(mappedKey, key);
    const item = record[key];
    const mapped = mapStrings(item, map, depth + 1);
    if (mappedKey !== key || mapped !== item) changed = true;
    entries.push([mappedKey, mapped]);
  }
  // fromEntries defines each key as its own property: a key mapped to `__proto__` stays a key.
  return changed ? Object.fromEntries(entries) : value;
}
