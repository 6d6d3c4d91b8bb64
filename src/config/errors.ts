import type { z } from 'zod';

/** A config that does not parse or validate, with the file and key paths that are wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `extensions.paths.0: expected string` lines, one per zod issue. */
export function formatConfigIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): string {
  return error.issues
    .map((issue) => {
      const path = [...prefix, ...issue.path].map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('\n');
}

export function parseWith<T>(
  schema: z.ZodType<T>,
  value: unknown,
  where: string,
  prefix: readonly PropertyKey[] = [],
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`invalid config in ${where}:\n${formatConfigIssues(parsed.error, prefix)}`);
}
