import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/**
 * The audit log as a hash chain (docs/teams.md, Evidence). Every line is the record's JSON object
 * with the chain's fields appended last, in this order:
 * - the first line of a chain: `chain_id` (a random id; the line's `at` is when the chain began)
 *   and, when the chain is signed, `chain_key` (the fingerprint of the public key);
 * - the first line of a file the log was rotated into: `chain_previous_file` (the file the
 *   previous line went to, as it was named at rotation) and `chain_kept_from` (the `chain_seq` the
 *   oldest rotated file still kept began with, so a missing oldest file is found too);
 * - every line: `chain_seq` (0, 1, 2 … across files) and `chain_prev`, the SHA-256 (hex) of the
 *   previous line's exact bytes without its newline (`null` on a chain's first line);
 * - when signed, `chain_sig`: the Ed25519 signature (base64) of the line's bytes up to it, with
 *   the closing brace in place of `,"chain_sig":…`.
 * A line is never re-serialised to be checked: its bytes as written are hashed and signed, so a
 * verifier needs no canonical JSON.
 */
export const CHAIN_FIELDS = [
  'chain_id',
  'chain_key',
  'chain_previous_file',
  'chain_kept_from',
  'chain_seq',
  'chain_prev',
  'chain_sig',
] as const;

/** Where the next line of a chain goes on from: the last line written, as the file holds it. */
export interface ChainHead {
  /** `chain_seq` of the last line. */
  seq: number;
  /** SHA-256 of the last line's bytes. */
  hash: string;
}

/**
 * What the end of a log file says about its chain: `empty` (no line), `chained` (its last line
 * carries `chain_seq`), or `unchained` (a line written before chaining, a torn or edited line):
 * a new chain starts after it, with `prev` its hash, so the verifier still sees what came before.
 */
export type FileEnd =
  | { state: 'empty' }
  | { state: 'chained'; head: ChainHead; cut: boolean }
  | { state: 'unchained'; hash: string; cut: boolean };

/** SHA-256 (hex) of a line's bytes, without its newline. */
export function lineHash(line: Uint8Array | string): string {
  return createHash('sha256').update(line).digest('hex');
}

/** Reads backwards from the end of `handle` in steps this large until a whole line is found. */
const TAIL_STEP = 64 * 1024;

/**
 * The last line of the open file, without its newline: the bytes after the last newline but one
 * when the file ends with one, else after the last newline: a line torn by a crash, or cut
 * (`cut`).
 */
export async function lastLine(
  handle: FileHandle,
): Promise<{ line: Buffer; cut: boolean } | undefined> {
  const size = (await handle.stat()).size;
  if (size === 0) return undefined;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  const cut = last[0] !== 0x0a;
  const end = cut ? size : size - 1;
  const parts: Buffer[] = [];
  let position = end;
  while (position > 0) {
    const length = Math.min(TAIL_STEP, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    const newline = chunk.lastIndexOf(0x0a);
    if (newline >= 0) {
      parts.unshift(chunk.subarray(newline + 1));
      break;
    }
    parts.unshift(chunk);
  }
  return { line: Buffer.concat(parts), cut };
}

/** What `lastLine` says about the chain a file holds. */
export async function fileEnd(handle: FileHandle): Promise<FileEnd> {
  const last = await lastLine(handle);
  if (last === undefined) return { state: 'empty' };
  const { line, cut } = last;
  const seq = chainSeqOf(line);
  const hash = lineHash(line);
  return seq === undefined
    ? { state: 'unchained', hash, cut }
    : { state: 'chained', head: { seq, hash }, cut };
}

/** The line's `chain_seq`, when it is a JSON object that carries a whole number there. */
export function chainSeqOf(line: Uint8Array): number | undefined {
  const record = parseRecord(Buffer.from(line).toString('utf8'));
  const seq = record?.chain_seq;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
}

/** The line as a JSON object, or undefined (not JSON, an array, a scalar). */
export function parseRecord(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The fields a line opens a chain or a file with, besides `chain_seq` and `chain_prev`. */
export interface ChainOpening {
  chain_id?: string;
  chain_key?: string;
  chain_previous_file?: string;
  chain_kept_from?: number;
}

/** Signs lines for a chain: the key's fingerprint (`chain_key`) and the signature of bytes. */
export interface ChainSigner {
  readonly fingerprint: string;
  sign(bytes: Buffer): string;
}

/**
 * One record (`body`, a JSON object's text, no newline) as the chain's line `seq` after the line
 * hashed `prev`: the chain's fields appended, signed when `signer` is given. Returns the line
 * without its newline.
 */
export function chainLine(
  body: string,
  seq: number,
  prev: string | null,
  opening: ChainOpening = {},
  signer?: ChainSigner,
): string {
  const fields = JSON.stringify({ ...opening, chain_seq: seq, chain_prev: prev });
  // `{...}` + `{fields}` → `{..., fields}`; a record is never empty: it has `at` at least.
  const unsigned = `${body.slice(0, -1)},${fields.slice(1)}`;
  if (signer === undefined) return unsigned;
  const signature = signer.sign(Buffer.from(unsigned));
  return `${unsigned.slice(0, -1)},"chain_sig":${JSON.stringify(signature)}}`;
}

/** `,"chain_sig":"<base64>"}` at the end of a signed line. */
const SIGNATURE = /,"chain_sig":"([A-Za-z0-9+/]*={0,2})"\}$/;

/** A signed line split into the bytes that were signed and the signature; undefined if unsigned. */
export function signedPart(line: string): { signed: string; signature: string } | undefined {
  const match = SIGNATURE.exec(line);
  if (match === null) return undefined;
  return { signed: `${line.slice(0, match.index)}}`, signature: match[1] as string };
}

/** The SHA-256 (hex, first 16 bytes) of a public key's SPKI bytes: `chain_key`. */
export function keyFingerprint(key: KeyObject): string {
  const spki = (key.type === 'public' ? key : createPublicKey(key)).export({
    type: 'spki',
    format: 'der',
  });
  return createHash('sha256').update(spki).digest('hex').slice(0, 32);
}

/** A signer from an Ed25519 private key in PEM; throws, saying why, for any other key. */
export function ed25519Signer(pem: string | Buffer): ChainSigner {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  }
  return {
    fingerprint: keyFingerprint(key),
    sign: (bytes) => sign(null, bytes, key).toString('base64'),
  };
}
