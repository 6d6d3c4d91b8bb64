import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretFiles } from './secret-files.js';

/** Secret shapes the common providers give their credentials, each with what it is called. */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    'private key',
  ],
  [/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, 'AWS access key'],
  [/\bgithub_pat_[A-Za-z0-9_]{22,}/g, 'GitHub token'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, 'GitHub token'],
  [/\bsk-ant-[A-Za-z0-9_-]{20,}/g, 'Anthropic key'],
  [/\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, 'OpenAI key'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, 'Slack token'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, 'JWT'],
  [/\b(Bearer\s+)[A-Za-z0-9._~+/-]{20,}=*/g, 'bearer token'],
];

/** A `.env` value shorter than this is too common a string to replace (`true`, `3000`). */
const MIN_VALUE = 8;
/**
 * Values that are settings, not secrets, however long (`development`, `localhost`, `86400`):
 * replacing every such word in every result would hide what the agent needs to read.
 */
const PLAIN = /^(?:[A-Za-z]+|[0-9]+)$/;

/** Replaces each known secret shape in `text` with `[redacted <what>]`. */
export function redactShapes(text: string): string {
  let out = text;
  for (const [shape, what] of SHAPES) {
    out = out.replace(shape, (_match, bearer?: unknown) =>
      typeof bearer === 'string' ? `${bearer}[redacted ${what}]` : `[redacted ${what}]`,
    );
  }
  return out;
}

/**
 * The values of the project's own secret env files (`.env`, `.env.local`, … as `SecretFiles`
 * judges them, in the project root), by variable, read again whenever a file changes.
 */
export class EnvValues {
  private seen = '';
  private values: Array<[string, string]> = [];

  constructor(
    private readonly root: string,
    private readonly secrets: SecretFiles,
  ) {}

  /** Values longest first, so a value that holds another is replaced whole. */
  current(): ReadonlyArray<readonly [string, string]> {
    let names: string[];
    try {
      names = readdirSync(this.root).filter(
        (n) => /^\.env/i.test(n) && this.secrets.secretAt(join(this.root, n)) !== undefined,
      );
    } catch {
      names = [];
    }
    const stamps = names
      .sort()
      .map((n) => {
        try {
          const stat = statSync(join(this.root, n));
          return stat.isFile() ? `${n}:${stat.mtimeMs}:${stat.size}` : '';
        } catch {
          return '';
        }
      })
      .join('|');
    if (stamps !== this.seen) {
      this.seen = stamps;
      this.values = names.flatMap((n) => parseEnv(readOr(join(this.root, n))));
      this.values.sort((a, b) => b[1].length - a[1].length);
    }
    return this.values;
  }

  redact(text: string): string {
    let out = text;
    for (const [name, value] of this.current()) {
      if (out.includes(value)) out = out.replaceAll(value, `[redacted .env value ${name}]`);
    }
    return out;
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** `NAME=value` lines (`export` and quotes taken off): values of at least `MIN_VALUE` characters that are not a plain word or number. */
export function parseEnv(text: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, '');
    const match = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/.exec(line);
    if (match === null) continue;
    let value = (match[2] as string).trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2)
      value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    if (value.length >= MIN_VALUE && !PLAIN.test(value)) found.push([match[1] as string, value]);
  }
  return found;
}
