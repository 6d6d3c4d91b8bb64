/**
 * The Perl hook client (hook-client.pl, docs/command-hooks.md "The Perl hook client") as the build
 * writes it to `dist/hook-client.pl` (scripts/bundle-cli.mjs): its `@NAME@` values filled in from
 * the modules the Node client reads them from, so that both name the same socket and keep the
 * same times. A value left unfilled is an error of the build, not a client that never matches.
 */
import { MOVED_CA_CERTS } from '../command-hook/hook-wrapper.js';
import { PERL_CLIENT_FILE } from '../command-hook/perl-step.js';
import { HOOK_DEADLINE_MS } from '../hook-deadline.js';
import { ACK_MS, FALLBACK_RESERVE_MS } from './ask.js';
import { START_STALE_MS } from './markers.js';
import {
  DAEMON_ACK,
  DAEMON_PROTOCOL,
  KEYED_ENV,
  QUIET_SESSION_START,
  SESSION_START,
} from './protocol.js';
import { H0, K } from './sha256.js';

export { PERL_CLIENT_FILE };

/**
 * The client's source files in src/host/daemon/, written one after the other into its one file:
 * its main part first (the others are subs it calls).
 */
export const PERL_CLIENT_SOURCES = [
  'hook-client.pl',
  'hook-client-start.pl',
  'hook-client-json.pl',
  'hook-client-sha256.pl',
] as const;

/** A list of 32-bit words as Perl reads them: unsigned, in hex. */
const words = (values: ArrayLike<number>) =>
  Array.from(values, (word) => `0x${(word >>> 0).toString(16).padStart(8, '0')}`).join(', ');

/** The client's text from the texts of PERL_CLIENT_SOURCES, in that order. */
export function perlClientText(sources: readonly string[], frameworkVersion: string): string {
  const values: Record<string, string> = {
    FRAMEWORK_VERSION: frameworkVersion,
    DAEMON_PROTOCOL: String(DAEMON_PROTOCOL),
    DAEMON_ACK,
    MOVED_CA_CERTS,
    KEYED_ENV: KEYED_ENV.source,
    FALLBACK_RESERVE_MS: String(FALLBACK_RESERVE_MS),
    HOOK_DEADLINE_MS: String(HOOK_DEADLINE_MS),
    ACK_MS: String(ACK_MS),
    START_STALE_MS: String(START_STALE_MS),
    SESSION_START,
    // A list of words: the agents' names are plain (agents.ts).
    QUIET_SESSION_START: QUIET_SESSION_START.join(' '),
    SHA256_K: words(K),
    SHA256_H0: words(H0),
  };
  for (const [name, value] of Object.entries(values)) {
    // Inside single quotes or a qr//: neither may hold what would end them.
    if (/['/\\]/.test(value)) throw new Error(`perl-client: ${name} holds a quote, / or \\`);
  }
  const text = sources.join('\n').replace(/@([A-Z][A-Z0-9_]+)@/g, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) throw new Error(`perl-client: no value for ${whole}`);
    return values[name] as string;
  });
  return text;
}
