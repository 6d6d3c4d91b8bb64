import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecretShapes } from 'hermes-extensions';
import type { SecretFiles } from './secret-files.js';

/** A `.env` value shorter than this is too common a string to replace (`true`, `3000`). */
const MIN_VALUE = 8;
/**
 * Values that are settings, not secrets, however long (`development`, `localhost`, `86400`):
 * replacing every such word in every result would hide what the agent needs to read.
 */
const PLAIN = /^(?:[A-Za-z]+|[0-9]+)$/;

/**
 * Replaces each known secret shape in `text` with `[redacted <what>]`: the framework's one list
 * (src/observe/secret-shapes.ts), which the observers' sanitizer redacts too.
 */
export function redactShapes(text: string): string {
  return redactSecretShapes(text, (what) => `[redacted ${what}]`);
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
