import { isPlainObject } from '../hooks/frozen.js';

/** How deep a result is looked into for binary data, as deep as the chain copies it. */
const MAX_DEPTH = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A tool's result with its binary data (a Buffer or any typed array, a DataView, an ArrayBuffer,
 * at the top or inside plain objects and arrays) as the UTF-8 text it holds, before
 * `transform_tool_result` runs. As JSON, a Buffer is a list of byte numbers and an ArrayBuffer
 * `{}`: a redactor (`mapStrings`) would find no text in them, and the model would read the bytes.
 * Decoded, the redactor sees the text the model gets. Bytes that are not UTF-8 text throw: the
 * host reports the call as the tool failing, so no guard is asked to judge what it cannot read.
 *
 * Plain objects and arrays are copied, each property read once: what is judged and sent is this
 * copy, so a getter cannot answer one way here and another when the result is serialised.
 * Deeper than 100 levels (or cyclic) the rest is left as it is, for JSON to refuse.
 */
export function decodedBinary(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isBinary(value)) return textOf(value);
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => decodedBinary(item, depth + 1));
  // Class instances (a Date, an Error) are left to JSON as before: only data is looked into.
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // Defined, not assigned: a `__proto__` key stays a key.
    Object.defineProperty(copy, key, {
      value: decodedBinary(value[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function isBinary(value: object): value is ArrayBufferView | ArrayBufferLike {
  return (
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)
  );
}

function textOf(value: ArrayBufferView | ArrayBufferLike): string {
  const bytes = ArrayBuffer.isView(value)
    ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
    : new Uint8Array(value);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new TypeError(
      `it returned binary data (${bytes.byteLength} bytes) that is not UTF-8 text; it is not sent to the model, as no guard can read it: return text instead`,
    );
  }
}
