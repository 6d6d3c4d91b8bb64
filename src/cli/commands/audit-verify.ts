import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { verifyAuditChain } from '../../observe/audit-verify.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';
import { auditLogPath } from './report-path.js';
import { auditFiles, readAuditBytes } from './report-read.js';
import { printable } from './trust/show-changes.js';

export interface AuditVerifyOptions {
  file?: string;
  publicKey?: string;
  json?: boolean;
}

/**
 * `hermes extensions audit verify [--file F] [--public-key K] [--json]`: checks the audit log's
 * hash chain (src/observe/audit-verify.ts) over its rotated files, oldest first. Exit 0 when every
 * line is where the chain says (and, with a key, signed by it); 1 at the first line that is not,
 * named with its file, its number and what is wrong, or when no line is chained at all.
 */
export async function auditVerifyCommand(
  context: CommandContext,
  options: AuditVerifyOptions,
  io: Io,
): Promise<number> {
  const path =
    options.file === undefined ? await auditLogPath(context) : resolve(context.cwd, options.file);
  const files = auditFiles(path);
  if (files.length === 0) {
    throw new CliError(
      `no audit log at ${printable(path)}: enable the audit-log extension (docs/teams.md, Evidence)${options.file === undefined ? ', or name the file with --file' : ''}.`,
      1,
    );
  }
  const key = options.publicKey === undefined ? undefined : publicKey(context, options.publicKey);
  const read = files.map((file) => ({
    path: file,
    bytes: readAuditBytes(file, options.file === undefined ? 'refuse' : 'follow'),
  }));
  const verdict = verifyAuditChain(read, key);
  if (options.json) {
    io.out(JSON.stringify({ files, ...verdict }, null, 2));
    return verdict.status === 'ok' ? 0 : 1;
  }
  if (verdict.status === 'broken') {
    const { at } = verdict;
    io.err(
      `BROKEN: line ${at.line} of ${printable(at.file)} ${printable(at.what)} (${verdict.lines} line(s) before it verified)`,
    );
    return 1;
  }
  if (verdict.status === 'unchained') {
    io.err(
      `UNCHAINED: ${verdict.unchained} line(s), none chained: the log was written before the audit log was chained, and cannot be verified. Lines written from now on are chained.`,
    );
    return 1;
  }
  const parts = [`OK: ${verdict.lines} line(s) chained in ${files.length} file(s)`];
  if (verdict.from > 0) parts.push(`from chain_seq ${verdict.from} (older files rotated away)`);
  if (verdict.unchained > 0)
    parts.push(`after ${verdict.unchained} line(s) written before chaining`);
  parts.push(
    verdict.signatures === 'verified'
      ? 'every line signed by the key'
      : verdict.signatures === 'unchecked'
        ? `signed, signatures not checked: give the public key with \`${hermesCommand()} extensions audit verify --public-key <file>\``
        : 'not signed',
  );
  io.out(parts.join('; '));
  return 0;
}

/** The key to check signatures with: a public key in PEM (a private key's public half will do). */
function publicKey(context: CommandContext, file: string): KeyObject {
  const path = resolve(context.cwd, file);
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(path));
  } catch (error) {
    throw new CliError(
      `${printable(path)} is not a public key in PEM (${(error as Error).message}): give the public half of the audit log's signing_key, \`openssl pkey -in <key> -pubout\``,
      2,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new CliError(`${printable(path)} is a ${key.asymmetricKeyType} key, not Ed25519`, 2);
  }
  return key;
}
