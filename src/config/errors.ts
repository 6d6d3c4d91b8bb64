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

/** What to add to an issue at a key path, such as a did-you-mean; empty when nothing. */
export type IssueHint = (path: readonly PropertyKey[]) => string;

/** `extensions.paths.0: expected string` lines, one per zod issue. */
export function formatConfigIssues(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
  hint: IssueHint = () => '',
): string {
  return error.issues
    .map((issue) => {
      const keys = [...prefix, ...issue.path];
      const path = keys.map(String).join('.');
      const message = `${issue.message}${hint(keys)}`;
      return path ? `${path}: ${message}` : message;
    })
    .join('\n');
}

export function parseWith<T>(
  schema: z.ZodType<T>,
  value: unknown,
  where: string,
  prefix: readonly PropertyKey[] = [],
  hint?: IssueHint,
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    `invalid config in ${where}:\n${formatConfigIssues(parsed.error, prefix, hint)}`,
  );
}
