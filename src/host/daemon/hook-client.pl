# The hook client in Perl: the warm path of the installed hook command (docs/command-hooks.md,
# "The Perl hook client"). The hook program (src/host/command-hook/hook-wrapper.ts) runs it as
#
#     /usr/bin/perl -T -C0 -- <package>/dist/hook-client.pl <agent> <node>
#
# before hermes itself: it asks the user's warm hook daemon what src/host/daemon/client.ts would
# ask it, over the same socket and protocol (protocol.ts), and prints its answer; Perl starts in a
# tenth of the time Node does. A daemon another hook is starting is waited for, a little; a
# session's start is answered at once, the daemon started for it where none is
# (hook-client-start.pl). Everything else - no daemon, one marked not serving, a socket folder
# that fails its checks, anything it does not understand - is hermes' own, and this hands the
# call over to it, by its exit code:
#
#     0   answered, the answer on stdout;
#     90  not read: stdin is untouched, hermes answers as it always has;
#     91  the event is on stdout: hermes answers it as it always has (its own client asks again);
#     92  "<ms> <event>" on stdout: answered in-process (the daemon took the event and failed it),
#         within the ms left of the deadline;
#     any other: the daemon's answer, with its exit code (one of these, or one Perl itself exits
#         with when it cannot run the file, becomes 1).
#
# It never exits with 2, 126, 127 or 255 of its own: those say Perl could not run it, so stdin is
# untouched. It loads no module (each one costs milliseconds, and none is needed on Linux); -T has
# Perl ignore PERL5OPT, PERL5LIB and PERLLIB, which the hook's environment - partly the
# project's - could set, and -C0 PERL_UNICODE; output goes by syswrite, which no PerlIO layer
# touches. The build fills in the @...@ values (scripts/bundle-cli.mjs, perl-client.ts) from
# protocol.ts, ask.ts, markers.ts and hook-deadline.ts, so both clients name the same socket and
# keep the same times.

$SIG{PIPE} = 'IGNORE';
my ($agent, $node, $mode) = @ARGV;
my $version = '@FRAMEWORK_VERSION@';
my $protocol = @DAEMON_PROTOCOL@;
my $ack_line = '@DAEMON_ACK@';
my $moved_ca = '@MOVED_CA_CERTS@';
my $keyed = qr/@KEYED_ENV@/;
my $started = $^T;
my $since = $^O eq 'linux' ? uptime() : undef;
# How long after its start this may still hand the call to hermes for a whole deadline of its own:
# the agents' hook timeout (30 s as install writes it) is 5 s past the deadline.
sub HANDED_WHOLE_MS () { 2000 }
# How many 50 ms looks it gives a daemon being started before it leaves the call to hermes, whose
# own client waits longer (client.ts START_WAIT_MS): within HANDED_WHOLE_MS.
sub START_WAIT_TICKS () { 30 }

# Sockets and send flags by system: elsewhere (and for a system call that fails) hermes answers.
my %MSG_DONTWAIT = (linux => 0x40, darwin => 0x80);
my ($connection, $cwd, $total, $bound, $ack_ms);
my $event = '';
my $reading = 0;
my $waited = 0;

# Any fault: before stdin is read, hermes answers as always; after, it is handed the event.
eval { main(); 1 } or ($reading ? held("the Perl hook client failed: $@") : exit 90);
exit 90;

sub main {
  exit 90 unless defined $agent && defined $node && exists $MSG_DONTWAIT{$^O};
  # The daemon turned off (bin/hermes.js `daemonClient`).
  exit 90 if defined $ENV{HERMES_DAEMON} && $ENV{HERMES_DAEMON} eq '0';

  # As bin/hermes.js puts it back first thing: the hook program moved it aside for hermes' Node.
  if (exists $ENV{$moved_ca}) {
    my $value = delete $ENV{$moved_ca};
    $ENV{NODE_EXTRA_CA_CERTS} = $value unless exists $ENV{NODE_EXTRA_CA_CERTS};
  }

  # protocol.ts `daemonKey`, `daemonSocketPath`; the user form's line sets both folders, absolute.
  my $home = $ENV{HERMES_HOME};
  my $dir = $ENV{HERMES_DAEMON_DIR};
  exit 90 unless defined $home && defined $dir && $home =~ m{^/} && $dir =~ m{^/};
  my @node = stat $node or exit 90;
  my $identity = join ':', @node[0, 1, 7, 9];
  my @vars = map { "$_=$ENV{$_}" } sort grep { $_ =~ $keyed } keys %ENV;
  my $key = substr sha256_hex(join "\0", normal($home), $version, $identity, $protocol, @vars), 0, 24;
  my $socket = normal("$dir/$key.sock");
  if (defined $mode && $mode eq '--socket') {
    syswrite STDOUT, "$socket\n";
    exit 0;
  }

  # daemon-dir.ts `daemonDirProblem`: a folder, not a link, this user's, closed to others.
  my @folder = lstat $dir or exit 90;
  exit 90 unless -d _ && $folder[4] == $< && ($folder[2] & 077) == 0;
  $cwd = working_folder();
  exit 90 unless defined $cwd;

  $total = deadline_ms();
  exit 90 unless defined $total;
  $bound = $total - ($total / 2 < @FALLBACK_RESERVE_MS@ ? $total / 2 : @FALLBACK_RESERVE_MS@);
  $ack_ms = ack_ms();
  exit 90 unless defined $ack_ms;
  $ack_ms = $bound if $bound < $ack_ms;

  exit 90 if length $socket > 100;
  my $address = $^O eq 'linux' ? pack('S', 1) . "$socket\0" : pack('CC', length($socket) + 3, 1) . "$socket\0";
  # Untainted (-T): each part of the path was checked above, or is this file's own.
  ($address) = $address =~ /^(.*)$/s;
  # Past the deadline this process ends, whatever it waits on (a connection a stopped daemon's
  # full backlog holds, say): killed by the signal, it is a hermes that did not answer, and the
  # program refuses the call before the agent's timeout would let it through.
  alarm int($total / 1000) + 2;
  # A daemon another hook is starting is waited for, as client.ts `waitForStart` waits, for less
  # (START_WAIT_TICKS): the many hooks of sessions that start at once then start no Node each.
  # A session's start is answered at once instead (hook-client-start.pl).
  for (my $tick = 0; !connected($socket, $address); $tick++) {
    my $being_started = starting($socket);
    session_start($socket, $address, $being_started) if $tick == 0;
    last if defined $connection;
    my $why = !$being_started ? 'no daemon serves, and none is being started'
      : $tick < START_WAIT_TICKS ? undef : 'the daemon being started is not serving yet';
    # Read by then (hook-client-start.pl): handed on whole.
    $reading ? held($why) : leave($why) if defined $why;
    select undef, undef, undef, 0.05;
  }
  read_event() unless $reading;
  exit ask();
}

# From here the event is read: whatever happens, it is handed on whole.
sub read_event {
  $reading = 1;
  while (1) {
    my $read = sysread STDIN, $event, 65536, length $event;
    last if defined $read && $read == 0;
    held("stdin could not be read: $!") unless defined $read;
  }
}

# Whether $connection is connected to a daemon that may serve: a socket at the path, not marked
# stuck. Something else there: hermes says what (markers.ts `notASocket`).
sub connected {
  my ($socket, $address) = @_;
  my @found = lstat $socket or return 0;
  exit 90 unless -S _;
  return 0 if marked_stuck($socket, @found);
  socket $connection, 1, 1, 0 or exit 90;
  return 1 if connect $connection, $address;
  close $connection;
  undef $connection;
  return 0;
}

# markers.ts `markedStuck`: the marker beside the socket names this very socket (its inode, and
# its change time to the second: Perl's stat has no finer one). One it cannot read: hermes decides.
sub marked_stuck {
  my ($socket, @found) = @_;
  (my $marker = $socket) =~ s/\.sock$/.stuck/;
  return 0 unless -e $marker;
  # Not a file (a FIFO would hold the read): hermes decides.
  return 1 unless -f _;
  open my $file, '<', $marker or return 1;
  my $text = <$file>;
  return 1 unless defined $text && $text =~ /"ino":(\d+)/;
  my $ino = $1;
  return 1 unless $text =~ /"ctimeMs":(\d+(?:\.\d+)?)/;
  return $ino == $found[1] && int($1 / 1000) == $found[10];
}

# One request: written, acknowledged within $ack_ms, answered within $bound (ask.ts `ask`).
sub ask {
  my $line = request_line();
  my $asked = now_ms();
  my $ack_until = $asked + $ack_ms;
  my $answer_until = $asked + $bound;
  my $writable = 0;
  while (length $line > 0) {
    my $sent = send $connection, $line, $MSG_DONTWAIT{$^O};
    if (defined $sent && $sent > 0) {
      substr($line, 0, $sent) = '';
      $writable = 0;
      next;
    }
    # Not sent though the socket said it could take more: the daemon has gone.
    return unacknowledged("the request could not be sent: $!") if $writable;
    $writable = wait_for(1, $ack_until);
    return unacknowledged('the daemon did not take the request') unless $writable;
  }
  my $received = '';
  my $acknowledged = 0;
  while (1) {
    unless (wait_for(0, $acknowledged ? $answer_until : $ack_until)) {
      return $acknowledged ? failed("no answer within $bound ms") : unacknowledged("no acknowledgement within $ack_ms ms");
    }
    my $read = sysread $connection, $received, 65536, length $received;
    return $acknowledged ? failed('the daemon closed without answering') : unacknowledged('the daemon closed without acknowledging') unless defined $read && $read > 0;
    while ((my $end = index $received, "\n") >= 0) {
      my $first = substr $received, 0, $end;
      substr($received, 0, $end + 1) = '';
      return answered($first) if $acknowledged || $first ne $ack_line;
      $acknowledged = 1;
    }
  }
}

# protocol.ts DaemonRequest, as client.ts writes it: the event, its folder and environment.
sub request_line {
  return '{"v":' . $protocol . ',"agent":' . js($agent) . ',"stdin":' . js($event)
    . ',"cwd":' . js($cwd) . ',"env":{' . join(',', map { js($_) . ':' . js($ENV{$_}) } sort keys %ENV)
    . '},"deadline":' . (($started + 0) * 1000 + int($bound)) . "}\n";
}

# Waits until the connection is writable ($write) or readable, until `now_ms` is $until; false
# past that.
sub wait_for {
  my ($write, $until) = @_;
  my $ms = $until - now_ms();
  return 0 if $ms <= 0;
  my $bits = '';
  vec($bits, fileno $connection, 1) = 1;
  my ($found, $left) = $write ? select(undef, $bits, undef, $ms / 1000) : select($bits, undef, undef, $ms / 1000);
  $left = 0 unless defined $left && $^O eq 'linux';
  $waited += $ms - $left * 1000;
  return $found > 0;
}

# protocol.ts DaemonAnswer, read as ask.ts `parseAnswer` reads it; anything else is not one.
sub answered {
  my $answer = object(shift);
  return failed('the daemon answered something that is not an answer')
    unless defined $answer && defined $answer->{v} && $answer->{v} eq "n$protocol"
    && defined $answer->{stdout} && $answer->{stdout} =~ /^s/
    && defined $answer->{stderr} && $answer->{stderr} =~ /^s/
    && defined $answer->{exitCode} && $answer->{exitCode} =~ /^n(\d+)$/ && $1 <= 255;
  my $code = $1 + 0;
  put(1, substr $answer->{stdout}, 1);
  put(2, substr $answer->{stderr}, 1);
  return 1 if grep { $code == $_ } 2, 90, 91, 92, 126, 127;
  return $code >= 128 ? 1 : $code;
}

sub put {
  my ($fd, $text) = @_;
  my $handle = $fd == 1 ? \*STDOUT : \*STDERR;
  while (length $text > 0) {
    my $written = syswrite $handle, $text;
    return unless defined $written;
    substr($text, 0, $written) = '';
  }
}

# Not acknowledged: the Node client asks again (and marks the daemon not serving), while that
# still leaves the hook its whole deadline within the agent's timeout (HANDED_WHOLE_MS); later,
# hermes answers in-process within what is left.
sub unacknowledged {
  my $why = shift;
  return elapsed_ms() <= HANDED_WHOLE_MS ? handed(91, '', $why) : failed($why);
}

# Taken and failed: answered in-process within what is left, never asked twice.
sub failed {
  my $why = shift;
  my $left = int($total - elapsed_ms());
  return handed(92, ($left > 1 ? $left : 1) . ' ', $why);
}

sub held {
  my $why = shift;
  exit(elapsed_ms() <= HANDED_WHOLE_MS ? handed(91, '', $why) : failed($why));
}

# Leaves the call to hermes before reading it (HERMES_DEBUG says why).
sub leave {
  put(2, "hermes: the Perl hook client leaves the call to hermes: $_[0]\n") if exists $ENV{HERMES_DEBUG};
  exit 90;
}

sub handed {
  my ($code, $prefix, $why) = @_;
  put(2, "hermes: the Perl hook client hands the call to hermes: $why\n") if exists $ENV{HERMES_DEBUG};
  put(1, $prefix . $event);
  return $code;
}

# The time since the start, never less: on Linux by the system's uptime (to a hundredth of a
# second; Perl's core has no finer clock), elsewhere by the clock's whole seconds (a second more
# than they say) or select's count, whichever says more.
sub elapsed_ms {
  return now_ms() + 20 if defined $since;
  my $clock = (time - $started + 1) * 1000;
  return $clock > $waited ? $clock : $waited;
}

# Milliseconds since the start: by the uptime on Linux; elsewhere the time select waited (a wait
# cut short by data counts whole there: the windows only end sooner).
sub now_ms {
  return defined $since ? (uptime() - $since) * 1000 : $waited;
}

sub uptime {
  open my $file, '<', '/proc/uptime' or return undef;
  my $line = <$file>;
  return defined $line && $line =~ /^(\d+(?:\.\d+)?)\s/ ? $1 : undef;
}

# hook-deadline.ts `hookDeadlineMs`; a value Node would read otherwise than Perl: hermes decides.
sub deadline_ms {
  my $set = $ENV{HERMES_HOOK_DEADLINE_MS};
  return @HOOK_DEADLINE_MS@ unless defined $set && length $set;
  return undef unless $set =~ /^\d+(\.\d+)?$/;
  return @HOOK_DEADLINE_MS@ if $set <= 0;
  return $set < @HOOK_DEADLINE_MS@ ? $set + 0 : @HOOK_DEADLINE_MS@;
}

# ask.ts `ackMs`.
sub ack_ms {
  my $set = $ENV{HERMES_DAEMON_ACK_MS};
  return @ACK_MS@ unless defined $set && length $set;
  return undef unless $set =~ /^\d+(\.\d+)?$/;
  return $set > 0 ? $set + 0 : @ACK_MS@;
}

# process.cwd(): the kernel's name for it, checked to be this very folder.
sub working_folder {
  my $cwd;
  if ($^O eq 'linux') {
    $cwd = readlink '/proc/self/cwd';
  } else {
    require Cwd;
    $cwd = Cwd::getcwd();
  }
  return undef unless defined $cwd && $cwd =~ m{^/};
  my @here = stat '.';
  my @named = stat $cwd;
  return @here && @named && $here[0] == $named[0] && $here[1] == $named[1] ? $cwd : undef;
}

# path.resolve of an absolute path: no empty, `.` or `..` parts, no trailing slash.
sub normal {
  my @parts;
  for my $part (split m{/}, shift) {
    next if $part eq '' || $part eq '.';
    if ($part eq '..') { pop @parts } else { push @parts, $part }
  }
  return '/' . join '/', @parts;
}
