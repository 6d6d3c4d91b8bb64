import { createHash } from 'node:crypto';

/** Hex SHA-256, the digest trust records and read guards compare. */
export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
