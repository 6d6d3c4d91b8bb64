/**
 * How the hook program (hook-wrapper.ts), from version 7, runs hermes in the user form: first the
 * Perl hook client (src/host/daemon/hook-client.pl, docs/command-hooks.md "The Perl hook client"),
 * which asks a warm daemon with no Node started (Perl starts in a tenth of Node's time), then,
 * when it hands the call over, hermes as before. Perl is `/usr/bin/perl` by its path (the PATH is the hook's environment, partly the
 * project's), the client the file beside the package's `bin/` (`$2` is `<package>/bin/hermes.js`),
 * on protected ground as hermes itself is. Without either, or in the project form (whose Node is
 * the PATH's, which the Perl client cannot name), hermes runs as in version 6.
 *
 * By the client's exit code (`z`, 90 when it did not run): 0 its answer, printed; 90, or what
 * Perl exits with when it cannot run the file (2, 126, 127, 255), hermes with the agent's stdin
 * untouched; 91 the event it read (`h`) handed to hermes; 92 `<ms> <event>`: hermes answers
 * in-process (HERMES_DAEMON=0) within those ms; any other the daemon's answer with its exit code,
 * taken as hermes' own (the lines after it decide what that means). Every variable is set before
 * it is read: the environment gives the shell variables of its own.
 */
/** The client's file in the package's `dist/`, where the build writes it (scripts/bundle-cli.mjs). */
export const PERL_CLIENT_FILE = 'hook-client.pl';

/** Perl, by its path: the PATH is the hook's environment, partly the project's. */
export const PERL = '/usr/bin/perl';

export const PERL_STEP = [
  `z=90 h= c=\${2%/bin/*}/dist/${PERL_CLIENT_FILE}`,
  `if [ -z "$p" ] && [ -x ${PERL} ] && [ -f "$c" ]; then o=$(${PERL} -T -C0 -- "$c" "$a" "$1"; echo " $?"); z=\${o##* }; o=\${o% *}; fi`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  'case $z in 0) printf %s "$o"; exit 0;; 90|2|126|127|255) o=$("$@"; echo " $?");; 91) h=$o; o=$(printf %s "$h" | "$@"; echo " $?");; 92) l=${o%% *}; h=${o#* }; o=$(printf %s "$h" | HERMES_DAEMON=0 HERMES_HOOK_DEADLINE_MS=$l "$@"; echo " $?");; *) o="$o $z";; esac',
];

/**
 * The event's name read from the copy the client handed over, when it did: whole, whatever became
 * of hermes (the agent's stdin, read to its end by the client, says nothing).
 */
export const HELD_EVENT = 'if [ -n "$h" ]; then n=$(printf %s "$h" | tr -d "[:space:]"); fi';
