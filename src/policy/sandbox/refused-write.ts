/**
 * What the OS sandbox makes a refused write say: the kernel's EROFS, which the tools word as
 * `Read-only file system` (touch, rm, mkdir, the shell's redirections, Python's `[Errno 30]`) or
 * name (Node.js's `EROFS: read-only file system`). A permission error is not one: inside the
 * sandbox it is a file kept from reading (`denyRead`), or the file's own mode, as outside.
 */
const REFUSED_WRITE = /read-only file system|\bEROFS\b/i;

/** Result fields where a shell tool's output is, in the order the advice goes to the first. */
const OUTPUT_FIELDS = [
  'stdout',
  'output',
  'content',
  'text',
  'result',
  'stderr',
  'error',
  'message',
];

/**
 * Whether a shell call's result says a write was refused as read-only — in a call known to have
 * run in a sandbox, the sandbox's refusal (docs/policy.md, When the sandbox refuses a write).
 * Reads every string of the result, whatever form the host gives it in (plain text, Claude
 * Code's `{stdout, stderr, …}`), down to a bounded depth.
 */
export function sandboxRefusedWrite(result: unknown, depth = 0): boolean {
  if (typeof result === 'string') return REFUSED_WRITE.test(result);
  if (result === null || typeof result !== 'object' || depth > 20) return false;
  return Object.values(result).some((value) => sandboxRefusedWrite(value, depth + 1));
}

/**
 * The result with `advice` as its last line, in the result's own form, so a host that checks a
 * replaced result's shape (Claude Code) takes it: a text result gets the line appended, an
 * object its first output field (`stdout`, `output`, …). Undefined when the result has no text
 * to append to (the advice would change its form).
 */
export function withAdvice(result: unknown, advice: string): unknown {
  if (typeof result === 'string') return appended(result, advice);
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return undefined;
  const record = result as Record<string, unknown>;
  const field = OUTPUT_FIELDS.find((key) => typeof record[key] === 'string');
  if (field === undefined) return undefined;
  return { ...record, [field]: appended(record[field] as string, advice) };
}

function appended(text: string, advice: string): string {
  return text === '' || text.endsWith('\n') ? `${text}${advice}\n` : `${text}\n${advice}\n`;
}
