# A session's start in the Perl hook client (hook-client.pl, which the build writes this file
# into: perl-client.ts). It decides nothing, so where no daemon serves it is answered at once with
# nothing, as client.ts answers it: while another hook is starting the daemon, or after this one
# has started it (daemon-start.ts `startDaemon`, the same lock and the same command), handed the
# event to load the session's runtime (warm.ts). The sessions that start at once then start no
# Node of their own; the first prompt of each waits for that one daemon.

# Called with the daemon not serving (hook-client.pl): reads the event where it may be a session's
# start, and answers it, or connects $connection to a daemon that came up meanwhile. Returns when
# the event is anything else (read or not), or the start is hermes' to make (a stale lock).
sub session_start {
  my ($socket, $address, $being_started) = @_;
  return unless grep { $_ eq $agent } qw(@QUIET_SESSION_START@);
  read_event();
  return unless is_session_start();
  exit 0 if $being_started;
  my ($lock) = "$socket" =~ /^(.*)\.sock\z/s;
  # Untainted (-T): the socket's path, whose every part was checked (hook-client.pl).
  ($lock) = "$lock.starting" =~ /^(.*)\z/s;
  # Taken by another hook meanwhile: answered as above; a stale one: hermes' client takes it over.
  # O_WRONLY | O_CREAT | O_EXCL by system (markers.ts `takeStart` opens the lock "wx"). (A sub's
  # own: this file's top-level lines run after hook-client.pl's, which never returns.)
  my $create_new = $^O eq 'darwin' ? 0xa01 : 0301;
  sysopen my $held, $lock, $create_new, 0600 or (starting($socket) ? exit 0 : return);
  write_lock($held, $$);
  # A daemon came up since this looked: it is asked, as client.ts does.
  if (connected($socket, $address)) {
    unlink $lock;
    return;
  }
  my $pid = start_daemon($lock);
  unless (defined $pid) {
    # Not started (no fork): the lock would name this process, which ends now; hermes starts one.
    unlink $lock;
    return;
  }
  write_lock($held, $pid);
  exit 0;
}

# markers.ts `starting`: a start's lock beside the socket, taken less than START_STALE_MS ago (by
# the clock's whole seconds), by a process that lives (or by one unknown: half-written).
sub starting {
  my ($socket) = @_;
  (my $lock = $socket) =~ s/\.sock$/.starting/;
  my @found = stat $lock or return 0;
  return 0 unless -f _;
  my ($pid, $at) = (0, $found[9] * 1000);
  if (open my $file, '<', $lock) {
    my $text = <$file>;
    ($pid, $at) = ($1, $2) if defined $text && $text =~ /^\{"pid":(\d+),"at":(\d+)\}/;
  }
  return 0 unless time * 1000 - $at < @START_STALE_MS@;
  # A process of another user (EPERM, 1) lives too.
  return $pid == 0 || kill(0, $pid) || $! + 0 == 1;
}

# protocol.ts `isSessionStart`: read whole as a JSON object whose `hook_event_name` is
# SESSION_START. One the flat reader does not take (nesting, spaces) is not taken for one.
sub is_session_start {
  return 0 unless index($event, '@SESSION_START@') >= 0;
  (my $line = $event) =~ s/\n\z//;
  my $fields = object($line);
  return defined $fields && ($fields->{hook_event_name} // '') eq 's@SESSION_START@';
}

# markers.ts `StartLock`: who starts the daemon, and since when (this clock's whole seconds).
sub write_lock {
  my ($held, $pid) = @_;
  truncate $held, 0;
  sysseek $held, 0, 0;
  syswrite $held, '{"pid":' . $pid . ',"at":' . time * 1000 . "}\n";
}

# `hermes daemon run --warm`, detached from the agent's pipes and in a session of its own, with the
# event on a pipe of this process's own; its pid, which the lock then names (the daemon removes
# it once it listens), or undef when it could not fork.
sub start_daemon {
  my ($lock) = @_;
  my $line = request_line();
  pipe my $from, my $to or return undef;
  my $pid = fork;
  return undef unless defined $pid;
  if ($pid == 0) {
    eval {
      # The agent waits for its hook's output to close: none of it is kept.
      open STDOUT, '>', '/dev/null' or die;
      open STDERR, '>', '/dev/null' or die;
      close $to;
      open STDIN, '<&', $from or die;
      require POSIX;
      POSIX::setsid();
      # This process ignores SIGPIPE (hook-client.pl); Node's children start with it as it is.
      $SIG{PIPE} = 'DEFAULT';
      # The hook's environment, as hermes would start it with (daemon-start.ts DAEMON_MALLOC).
      $ENV{MALLOC_ARENA_MAX} = '2' unless exists $ENV{MALLOC_ARENA_MAX};
      # Untainted as it is: -T refuses an exec with values from outside, and a PATH that holds a
      # relative or world-writable folder whatever its taint (then this start fails, below).
      ($ENV{$_}) = $ENV{$_} =~ /^(.*)\z/s for keys %ENV;
      my ($program) = $node =~ /^(.*)\z/s;
      my ($bin) = $0 =~ m{^(.*)/dist/[^/]+\z}s;
      die unless defined $bin;
      exec { $program } $program, "$bin/bin/hermes.js", 'daemon', 'run', '--warm';
    };
    # Not started: the lock goes, so that the next hook's own client starts one at once.
    unlink $lock;
    POSIX::_exit(1) if defined &POSIX::_exit;
    exit 1;
  }
  close $from;
  # The daemon reads it as it starts; one that ends first loses only the warm start.
  syswrite $to, $line;
  close $to;
  return $pid;
}
