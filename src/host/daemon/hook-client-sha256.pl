# SHA-256 for the Perl hook client (hook-client.pl; perl-base has no Digest::SHA): sha256.ts in
# Perl, its constants given by the build from sha256.ts (perl-client.ts).

# SHA-256 (FIPS 180-4) of bytes, as hex.
sub sha256_hex {
  my $message = shift;
  my @k = (@SHA256_K@);
  my @h = (@SHA256_H0@);
  my $bits = length($message) * 8;
  $message .= "\x80" . ("\0" x ((55 - length $message) % 64)) . pack('NN', int($bits / 2**32), $bits % 2**32);
  for (my $block = 0; $block < length $message; $block += 64) {
    my @w = unpack 'N16', substr $message, $block, 64;
    for my $t (16 .. 63) {
      my ($a, $b) = ($w[$t - 15], $w[$t - 2]);
      my $s0 = (($a >> 7 | $a << 25) ^ ($a >> 18 | $a << 14) ^ $a >> 3) & 0xffffffff;
      my $s1 = (($b >> 17 | $b << 15) ^ ($b >> 19 | $b << 13) ^ $b >> 10) & 0xffffffff;
      $w[$t] = ($w[$t - 16] + $s0 + $w[$t - 7] + $s1) & 0xffffffff;
    }
    my ($a, $b, $c, $d, $e, $f, $g, $hh) = @h;
    for my $t (0 .. 63) {
      my $S1 = (($e >> 6 | $e << 26) ^ ($e >> 11 | $e << 21) ^ ($e >> 25 | $e << 7)) & 0xffffffff;
      my $ch = ($e & $f) ^ (~$e & $g);
      my $t1 = ($hh + $S1 + $ch + $k[$t] + $w[$t]) & 0xffffffff;
      my $S0 = (($a >> 2 | $a << 30) ^ ($a >> 13 | $a << 19) ^ ($a >> 22 | $a << 10)) & 0xffffffff;
      my $t2 = ($S0 + (($a & $b) ^ ($a & $c) ^ ($b & $c))) & 0xffffffff;
      ($hh, $g, $f, $e, $d, $c, $b, $a) = ($g, $f, $e, ($d + $t1) & 0xffffffff, $c, $b, $a, ($t1 + $t2) & 0xffffffff);
    }
    my @next = ($a, $b, $c, $d, $e, $f, $g, $hh);
    $h[$_] = ($h[$_] + $next[$_]) & 0xffffffff for 0 .. 7;
  }
  return join '', map { sprintf '%08x', $_ } @h;
}
