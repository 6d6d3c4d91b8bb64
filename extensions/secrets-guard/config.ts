import { z } from 'zod';

/**
 * Files that hold secrets, by default: a pattern without `/` is a file name anywhere (`.env`,
 * `*.pem`); one with `/` is a path, from the home folder (`~/`), absolute, or else from the
 * project root. Compared without case (a case-insensitive disk opens `.ENV` as `.env`).
 */
export const DEFAULT_FILES: readonly string[] = [
  '.env',
  '.env.*',
  '.envrc',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.git-credentials',
  '~/.aws/credentials',
  '~/.ssh/*',
  '~/.docker/config.json',
  '~/.kube/config',
];

/**
 * Files that match `DEFAULT_FILES` and hold no secret by convention: the examples a project
 * commits for its `.env` (names, placeholder values), public keys, and the ssh files that are
 * not keys.
 */
export const DEFAULT_ALLOW: readonly string[] = [
  '.env.example',
  '.env.sample',
  '.env.template',
  '.env.dist',
  '.env.defaults',
  '*.pub',
  '~/.ssh/known_hosts',
  '~/.ssh/config',
  '~/.ssh/authorized_keys',
];

const pattern = z
  .string()
  .trim()
  .min(1, 'a file pattern may not be empty')
  .refine((p) => !/[\0\n]/.test(p), 'a file pattern is one line');

/**
 * `files` and `allow` add to the defaults (a list given in config never drops `.env`
 * unnoticed): to let a default through, name it in `allow`.
 */
export const secretsGuardConfig = z
  .object({
    /** More files that hold secrets. */
    files: z.array(pattern).default([]),
    /** Files let through although a pattern of `files` (or a default) matches them. */
    allow: z.array(pattern).default([]),
    /** Tools run as shell commands, judged by the files their command names. */
    shell_tools: z.array(z.string()).optional(),
    /** Replace known secret shapes and the project's `.env` values in tool results. */
    redact: z.boolean().default(true),
  })
  .strict();

export type SecretsGuardConfig = z.output<typeof secretsGuardConfig>;
