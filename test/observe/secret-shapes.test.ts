import { sanitize } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { redactShapes } from '../../extensions/secrets-guard/redact.js';

/**
 * Every secret shape either redactor knew before they shared one list (src/observe/secret-shapes.ts):
 * the text, and the part of it that must not survive. The observers' sanitizer (telemetry, the
 * audit trail) and secrets-guard (what the model reads of a result) must each hide them all.
 */
const SHAPES: Array<[string, string, string]> = [
  // secrets-guard's
  ['an AWS access key', 'AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['a GitHub token', `ghp_${'a1B2'.repeat(9)}`, 'a1B2a1B2a1B2'],
  ['a fine-grained GitHub token', `github_pat_${'x1'.repeat(20)}`, 'x1x1x1x1x1x1'],
  ['an OpenAI key', 'sk-proj-abcdefghijklmnop1234567890', 'abcdefghijklmnop'],
  ['an Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrs'],
  ['a Slack token', 'xoxb-1234567890-abcdefghij', '1234567890-abcdefghij'],
  [
    'a JWT',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'dozjgNryP4J3jVmNHl0w5N',
  ],
  [
    'a private key block',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
    'MIIEowIBAAKCAQEA',
  ],
  ['a long bearer token', 'Bearer abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz'],
  // the sanitizer's
  ['a short bearer token', 'Bearer abc123def4', 'abc123def4'],
  ['a Basic credential', 'Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA'],
  ['a Stripe-style secret key', 'sk_live_abcdef123456', 'abcdef123456'],
  ['a publishable key', 'pk_test_abcdef123456', 'abcdef123456'],
  ['a GitHub OAuth token with a dash', 'gho-abcdef1234567', 'abcdef1234567'],
  ['a Slack token with an underscore', 'xoxp_abcdef1234567', 'abcdef1234567'],
];

describe('one list of secret shapes', () => {
  it.each(SHAPES)('the observers’ sanitizer redacts %s', (_label, secret, part) => {
    const cleaned = sanitize({ note: `before ${secret} after` }) as { note: string };
    expect(cleaned.note).not.toContain(part);
    expect(cleaned.note).toMatch(/^before .*\[REDACTED\].* after$/s);
  });

  it.each(SHAPES)('secrets-guard redacts %s, naming it', (_label, secret, part) => {
    const redacted = redactShapes(`before ${secret} after`);
    expect(redacted).not.toContain(part);
    expect(redacted).toMatch(/^before .*\[redacted [^\]]+\].* after$/s);
  });

  it('keeps the scheme of a bearer token and names each key for what it is', () => {
    expect(sanitize('use Bearer abcdefghijklmnop now')).toBe('use Bearer [REDACTED] now');
    expect(redactShapes('key sk-ant-api03-abcdefghijklmnopqrstuvwxyz')).toBe(
      'key [redacted Anthropic key]',
    );
    expect(redactShapes('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe(
      'Authorization: Basic [redacted bearer token]',
    );
    // Words and counts that only look near a shape stay.
    const plain = 'input_tokens 1234, sk-8, the Basic plan, task-1234567890';
    expect(sanitize(plain)).toBe(plain);
    expect(redactShapes(plain)).toBe(plain);
  });
});
