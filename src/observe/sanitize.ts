import { redactSecretShapes } from './secret-shapes.js';

/** Bounds for what observers receive: telemetry, not a copy of everything. */
const MAX_STRING = 4096;
const MAX_ITEMS = 100;
const MAX_DEPTH = 8;
/** Key names (in snake case) whose values are secrets; `input_tokens` is a count, not a token. */
const SENSITIVE_KEY =
  /(^|_)(pass|passwd|password|secret|token|api_?key|authorization|auth|cookie|set_cookie|credentials?|private_key|session_key|access_key)$/;
export const REDACTED = '[REDACTED]';

/**
 * A JSON-safe, size-bounded, frozen copy for observers: sensitive keys and secret shapes
 * (secret-shapes.ts: API keys, tokens, private keys) redacted, long strings and lists cut (saying so), cycles and depth stopped, errors as
 * `{ type, message }`, dates as ISO strings, functions and symbols dropped.
 */
export function sanitize(value: unknown): unknown {
  return clean(value, 0, new WeakSet());
}

function clean(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return { type: value.name, message: redactText(value.message) };
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated: too deep]';
  seen.add(value);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => clean(item, depth + 1, seen) ?? null);
    if (value.length > MAX_ITEMS) items.push(`[Truncated: ${value.length - MAX_ITEMS} more items]`);
    return Object.freeze(items);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isSensitive(key)) {
      copy[key] = REDACTED;
      continue;
    }
    const cleaned = clean(item, depth + 1, seen);
    if (cleaned !== undefined) copy[key] = cleaned;
  }
  return Object.freeze(copy);
}

function redactText(text: string): string {
  const redacted = redactSecretShapes(text, () => REDACTED);
  return redacted.length > MAX_STRING
    ? `${redacted.slice(0, MAX_STRING)}[Truncated: ${redacted.length - MAX_STRING} more characters]`
    : redacted;
}

/** Payloads repeat the same few keys (role, content, name, …): each is judged once. */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 4096;

function isSensitive(key: string): boolean {
  let sensitive = judged.get(key);
  if (sensitive === undefined) {
    sensitive = judge(key);
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(key, sensitive);
  }
  return sensitive;
}

function judge(key: string): boolean {
  const snake = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
  return SENSITIVE_KEY.test(snake);
}
