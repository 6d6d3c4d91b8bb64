# JSON for the Perl hook client (hook-client.pl, which the build writes these files into, one
# after the other: perl-client.ts): the request's strings written, the daemon's answer read.

# A flat JSON object of strings and numbers: name => "s<text as UTF-8>" or "n<number>"; undefined
# for anything else (nesting, spaces, a bad escape).
sub object {
  my $line = shift;
  my %fields;
  return undef unless substr($line, 0, 1) eq '{';
  my $at = 1;
  while (1) {
    return undef unless substr($line, $at, 1) eq '"';
    my $name_end = index $line, '"', $at + 1;
    return undef if $name_end < 0;
    my $name = substr $line, $at + 1, $name_end - $at - 1;
    return undef unless $name =~ /^\w+$/ && substr($line, $name_end + 1, 1) eq ':';
    $at = $name_end + 2;
    if (substr($line, $at, 1) eq '"') {
      my $end = string_end($line, $at + 1);
      return undef if $end < 0;
      my $text = unjs(substr $line, $at + 1, $end - $at - 1);
      return undef unless defined $text;
      $fields{$name} = "s$text";
      $at = $end + 1;
    } else {
      pos($line) = $at;
      return undef unless $line =~ /\G(-?\d+)/gc;
      $fields{$name} = "n$1";
      $at += length $1;
    }
    my $next = substr $line, $at++, 1;
    last if $next eq '}';
    return undef unless $next eq ',';
  }
  return $at == length $line ? \%fields : undef;
}

sub string_end {
  my ($line, $at) = @_;
  while (1) {
    my $quote = index $line, '"', $at;
    return -1 if $quote < 0;
    my $slashes = 0;
    $slashes++ while substr($line, $quote - 1 - $slashes, 1) eq '\\';
    return $quote if $slashes % 2 == 0;
    $at = $quote + 1;
  }
}

# A JSON string's text as UTF-8 bytes, as Node's Buffer.from gives them (a lone surrogate: U+FFFD).
sub unjs {
  my $text = shift;
  return undef if $text =~ /[\x00-\x1f]/;
  my %escaped = ('"' => '"', '\\' => '\\', '/' => '/', b => "\b", f => "\f", n => "\n", r => "\r", t => "\t");
  my $bad = 0;
  $text =~ s{\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))}{
    defined $1 ? utf8(0x10000 + ((hex($1) - 0xd800) << 10) + hex($2) - 0xdc00)
    : defined $3 ? utf8(hex $3)
    : exists $escaped{$4} ? $escaped{$4} : do { $bad = 1; '' }
  }gse;
  return $bad ? undef : $text;
}

sub utf8 {
  my $c = shift;
  return "\xEF\xBF\xBD" if $c >= 0xd800 && $c <= 0xdfff;
  return chr $c if $c < 0x80;
  return pack 'C2', 0xc0 | $c >> 6, 0x80 | $c & 63 if $c < 0x800;
  return pack 'C3', 0xe0 | $c >> 12, 0x80 | ($c >> 6) & 63, 0x80 | $c & 63 if $c < 0x10000;
  return pack 'C4', 0xf0 | $c >> 18, 0x80 | ($c >> 12) & 63, 0x80 | ($c >> 6) & 63, 0x80 | $c & 63;
}

# Bytes as a JSON string: the daemon reads the line as UTF-8, as the Node client's stdin is read.
sub js {
  my $text = shift;
  $text =~ s/(["\\\x00-\x1f])/sprintf '\\u%04x', ord $1/ge;
  return qq("$text");
}
