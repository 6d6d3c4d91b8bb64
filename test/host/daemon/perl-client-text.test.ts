import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACK_MS } from '../../../src/host/daemon/ask.js';
import { PERL_CLIENT_SOURCES, perlClientText } from '../../../src/host/daemon/perl-client.js';
import { DAEMON_ACK, KEYED_ENV } from '../../../src/host/daemon/protocol.js';

/**
 * The Perl hook client as the build writes it (src/host/daemon/perl-client.ts): every value the
 * template names is filled in from the Node client's own modules, and a name with no value stops
 * the build rather than ship a client that would name no daemon's socket.
 */
const sources = PERL_CLIENT_SOURCES.map((name) =>
  readFileSync(new URL(`../../../src/host/daemon/${name}`, import.meta.url), 'utf8'),
);

describe('the Perl hook client’s text', () => {
  it('has every value filled in from the Node client’s modules', () => {
    const text = perlClientText(sources, '9.8.7');
    expect(text).not.toMatch(/@[A-Z][A-Z0-9_]+@/);
    // SHA-256's constants, unsigned, from sha256.ts.
    expect(text).toContain('my @k = (0x428a2f98, 0x71374491,');
    expect(text).toContain('0xbef9a3f7, 0xc67178f2);');
    expect(text).toContain('my @h = (0x6a09e667, 0xbb67ae85,');
    expect(text).toContain("my $version = '9.8.7';");
    expect(text).toContain(`my $ack_line = '${DAEMON_ACK}';`);
    expect(text).toContain(`my $keyed = qr/${KEYED_ENV.source}/;`);
    expect(text).toContain(`return ${ACK_MS} unless defined $set`);
  });

  it('stops at a name it has no value for, or a value that would end its quotes', () => {
    expect(() => perlClientText([...sources, "my $x = '@NO_SUCH_VALUE@';\n"], '1.0.0')).toThrow(
      /no value for @NO_SUCH_VALUE@/,
    );
    expect(() => perlClientText(sources, "1.0.0'; system('x')")).toThrow(/FRAMEWORK_VERSION/);
  });
});
