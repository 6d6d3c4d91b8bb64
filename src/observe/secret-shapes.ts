/**
 * The shapes credentials take in text, each with what it is called: the one list both the
 * observers' sanitizer (sanitize.ts: what telemetry and the audit trail hold) and the shipped
 * secrets-guard (what the model reads of a tool's result) redact, so a shape learnt by one is
 * hidden by both. Specific shapes come before the general ones that would also match them, so a
 * key is named for what it is. A shape with a group keeps that group (`Bearer `) and replaces
 * the rest.
 */
export const SECRET_SHAPES: ReadonlyArray<{ readonly shape: RegExp; readonly what: string }> = [
  {
    shape:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    what: 'private key',
  },
  { shape: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, what: 'AWS access key' },
  { shape: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, what: 'GitHub token' },
  { shape: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, what: 'GitHub token' },
  { shape: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, what: 'Anthropic key' },
  { shape: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, what: 'OpenAI key' },
  { shape: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, what: 'Slack token' },
  { shape: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, what: 'JWT' },
  // Shorter keys of the same prefixes (`sk_live_…`, `pk-…`, `gho-…`, `xoxp_…`).
  { shape: /\b(?:sk|pk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{12,}\b/g, what: 'API key' },
  { shape: /\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/-]{8,}=*/g, what: 'bearer token' },
];

/**
 * A cheap test first: most text holds none of the shapes' fixed parts, and the sanitizer runs on
 * every string of every observer payload. Each shape above has one of these in every match.
 */
const MAYBE_SECRET =
  /PRIVATE KEY|AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|sk[-_]|pk[-_]|gh[po]-|xox|eyJ|Bearer|Basic/;

/** `text` with each secret shape replaced by `label(what it is)`, a kept group (`Bearer `) kept. */
export function redactSecretShapes(text: string, label: (what: string) => string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const { shape, what } of SECRET_SHAPES) {
    out = out.replace(shape, (_match, kept?: unknown) =>
      typeof kept === 'string' ? `${kept}${label(what)}` : label(what),
    );
  }
  return out;
}
