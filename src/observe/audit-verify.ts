import { type KeyObject, verify } from 'node:crypto';
import { basename } from 'node:path';
import { chainSeqOf, keyFingerprint, lineHash, parseRecord, signedPart } from './audit-chain.js';

/** One file of a log, oldest first, as read: its path and bytes. */
export interface AuditFileBytes {
  path: string;
  bytes: Buffer;
}

/** Where the chain breaks: the file, its line (from 1) and what is wrong there. */
export interface ChainBreak {
  file: string;
  line: number;
  what: string;
}

export type ChainVerdict =
  | {
      status: 'ok';
      /** Chained lines checked. */
      lines: number;
      /** Lines before the chain began (written before the log was chained). */
      unchained: number;
      /** The `chain_seq` the log as kept begins at (older files were rotated away). */
      from: number;
      signatures: 'verified' | 'unchecked' | 'none';
    }
  | { status: 'unchained'; unchained: number }
  | { status: 'broken'; at: ChainBreak; lines: number };

interface Line {
  file: string;
  number: number;
  bytes: Buffer;
  /** No newline after it: cut short. */
  cut: boolean;
  seq: number | undefined;
  record: Record<string, unknown> | undefined;
}

function splitLines(file: AuditFileBytes): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let number = 0;
  while (start < file.bytes.length) {
    const newline = file.bytes.indexOf(0x0a, start);
    const end = newline < 0 ? file.bytes.length : newline;
    const bytes = file.bytes.subarray(start, end);
    number++;
    lines.push({
      file: file.path,
      number,
      bytes,
      cut: newline < 0,
      seq: chainSeqOf(bytes),
      record: parseRecord(bytes.toString('utf8')),
    });
    start = end + 1;
  }
  return lines;
}

const where = (line: Line) => `line ${line.number} of ${basename(line.file)}`;

/**
 * Checks the chain an audit log's files hold, oldest file first (audit-chain.ts has the format):
 * every line's `chain_prev` is the hash of the line before it and its `chain_seq` one more, the
 * first line begins a chain or goes on from files rotated away (as the newest rotation recorded),
 * and, with `publicKey`, every line is signed by it. Names the first line where that fails, and
 * why: edited, missing (deleted), out of order, cut short, not signed or badly signed. Lines
 * before the chain began (a log written before chaining) are counted as unchained.
 */
export function verifyAuditChain(
  files: readonly AuditFileBytes[],
  publicKey?: KeyObject,
): ChainVerdict {
  const lines = files.flatMap(splitLines);
  const positions = new Map<number, number>();
  for (const [index, line] of lines.entries())
    if (line.seq !== undefined && !positions.has(line.seq)) positions.set(line.seq, index);
  let keptFrom: number | undefined;
  for (const line of lines) {
    const kept = line.record?.chain_kept_from;
    if (typeof kept === 'number') keptFrom = kept;
  }
  const fingerprint = publicKey === undefined ? undefined : keyFingerprint(publicKey);
  let unchained = 0;
  let checked = 0;
  let from = 0;
  let signed = false;
  const broken = (line: Line, what: string, verified = checked): ChainVerdict => ({
    status: 'broken',
    at: { file: line.file, line: line.number, what },
    lines: verified,
  });
  for (const [index, line] of lines.entries()) {
    const previous = index > 0 ? lines[index - 1] : undefined;
    if (line.cut) {
      return broken(line, 'is cut short: it has no newline at its end (the file was truncated)');
    }
    if (checked === 0 && line.seq === undefined) {
      // Before the chain began: a log written before chaining.
      unchained++;
      continue;
    }
    if (line.seq === undefined || line.record === undefined) {
      return broken(
        line,
        line.record === undefined
          ? 'is not a JSON object: edited, or written by something else'
          : 'carries no chain_seq: inserted, or edited, after the chain began',
      );
    }
    const seq = line.seq;
    const prev = line.record.chain_prev;
    if (checked === 0) {
      const starts = typeof line.record.chain_id === 'string' && seq === 0;
      if (!starts && seq !== keptFrom) {
        return broken(
          line,
          `begins with chain_seq ${seq}: the ${seq} line(s) before it are missing (a rotated file deleted, or lines cut from the start)${keptFrom === undefined ? '' : `; the last rotation kept the chain from chain_seq ${keptFrom}`}`,
        );
      }
      const expected = starts && previous !== undefined ? lineHash(previous.bytes) : null;
      if (starts && prev !== expected) {
        return broken(line, "begins the chain, but its chain_prev is not the line before it's");
      }
      from = seq;
    } else if (previous !== undefined) {
      const problem = linkProblem(line, seq, prev, previous, lines, positions);
      if (problem !== undefined) return problem;
    }
    const problem = signatureProblem(line, publicKey, fingerprint);
    if (problem !== undefined) return broken(line, problem);
    if (line.record.chain_sig !== undefined) signed = true;
    checked++;
  }
  if (checked === 0) return { status: 'unchained', unchained };
  const signatures = publicKey !== undefined ? 'verified' : signed ? 'unchecked' : 'none';
  return { status: 'ok', lines: checked, unchained, from, signatures };

  function linkProblem(
    line: Line,
    seq: number,
    prev: unknown,
    previous: Line,
    all: readonly Line[],
    at: ReadonlyMap<number, number>,
  ): ChainVerdict | undefined {
    const before = previous.seq as number;
    if (prev === lineHash(previous.bytes) && seq === before + 1) return undefined;
    if (seq === before + 1) {
      // The line before is where it should be, and is not the one this line's hash names.
      return broken(
        previous,
        `was edited: its bytes are not those the next line (chain_seq ${seq}) recorded the hash of`,
        checked - 1,
      );
    }
    if (seq > before + 1) {
      const later = at.get(before + 1);
      if (later !== undefined && later > all.indexOf(line)) {
        return broken(
          line,
          `is out of order: chain_seq ${seq} comes before chain_seq ${before + 1} (${where(all[later] as Line)})`,
        );
      }
      return broken(
        line,
        `follows chain_seq ${before}: the line(s) chain_seq ${before + 1} to ${seq - 1} are missing (deleted${line.number === 1 ? ', or a rotated file deleted' : ''})`,
      );
    }
    const first = at.get(seq);
    if (first !== undefined && all[first]?.bytes.equals(line.bytes)) {
      return broken(line, `repeats chain_seq ${seq} (${where(all[first] as Line)}): a line copied`);
    }
    return broken(
      line,
      `is out of order: chain_seq ${seq} comes after chain_seq ${before} (${where(previous)})`,
    );
  }

  function signatureProblem(
    line: Line,
    key: KeyObject | undefined,
    expected: string | undefined,
  ): string | undefined {
    if (key === undefined) return undefined;
    const chainKey = line.record?.chain_key;
    if (typeof chainKey === 'string' && chainKey !== expected) {
      return `names the signing key ${chainKey}, not the one given (${expected})`;
    }
    const part = signedPart(line.bytes.toString('utf8'));
    if (part === undefined) return 'is not signed';
    const good = verify(null, Buffer.from(part.signed), key, Buffer.from(part.signature, 'base64'));
    return good
      ? undefined
      : 'has a signature the key does not verify: edited, or signed by another key';
  }
}
