import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * The hook daemon's network filter, as a sandboxed line with a network domain allowed points at
 * it (docs/policy.md, What runs where): one per set of allowed domains, kept by the daemon, named
 * by those domains. Here only what the line and its maker agree on: the names, and the way a
 * runtime thread of the daemon asks for a filter to be kept. The filter itself is the daemon's
 * (src/host/daemon/network-filters.ts).
 */

/** What a runtime thread of the hook daemon has: a way to have a filter kept for some domains. */
export interface NetworkFilterHost {
  /**
   * Keep a filter running for `domains` in the state folder `stateDir` (idempotent; it may start
   * after this returns: the line waits a little for it, then fails).
   */
  want(stateDir: string, domains: readonly string[]): void;
}

// On globalThis: the framework and an extension that imports it may be two copies of the module
// in one thread (a bundled extension); each thread has its own globalThis.
const HOST = Symbol.for('hermes-extensions.sandbox.network-filter');
type WithHost = { [HOST]?: NetworkFilterHost };

/**
 * Lines made in this thread from now on with a domain allowed point at `host`'s filter (none:
 * the `srt` line again).
 */
export function serveNetworkFilterFrom(host: NetworkFilterHost | undefined): void {
  (globalThis as WithHost)[HOST] = host;
}

/** The filter host of this thread: none outside a hook daemon's runtime (the `srt` line then). */
export function networkFilterHost(): NetworkFilterHost | undefined {
  return (globalThis as WithHost)[HOST];
}

/** The domains as a filter is made for them: once each, in order. */
export function filterDomains(domains: readonly string[]): string[] {
  return [...new Set(domains)].sort();
}

/** The text of the file that names a filter's domains (its digest names the filter). */
export function domainsText(domains: readonly string[]): string {
  return `${JSON.stringify(filterDomains(domains))}\n`;
}

/** `network-<digest>`: the domains file (`.json`) and the filter's folder share it. */
export function filterName(domains: readonly string[]): string {
  const digest = createHash('sha256').update(domainsText(domains)).digest('hex').slice(0, 16);
  return `network-${digest}`;
}

/**
 * The filter's folder in the state folder (which no sandbox may write): its socket, where the
 * bridge inside the sandbox connects, and the token its proxies ask for.
 */
export function filterDir(stateDir: string, domains: readonly string[]): string {
  return join(stateDir, filterName(domains));
}

export const FILTER_SOCKET = 'filter.sock';
export const FILTER_TOKEN = 'token';

/** The loopback ports inside the sandbox where the bridge listens (the runtime's own). */
export const HTTP_PORT = 3128;
export const SOCKS_PORT = 1080;

/**
 * The script that starts a sandboxed command with a domain allowed, run by bash in bubblewrap's
 * outer layer (network namespace of its own, the file system as the sandbox has it): with the
 * filter's folder and the inner bubblewrap line as its arguments. Two `socat`s listen on the
 * sandbox's loopback and carry each connection to the filter's socket. It waits up to 10 s for
 * the filter's socket, and ends with status 126 and a message when it is not there: the command
 * is not run. (A socket left by a filter killed at once with its daemon refuses every
 * connection: the command runs with no network.) Else the inner line runs the command — under
 * the seccomp filter that refuses Unix sockets, in a process namespace of its own (it cannot
 * reach the `socat`s but through their ports) — with the proxy variables pointing at them. Kept
 * as a file in the state folder, named by its digest: bash reads it with `-p` (no `BASH_ENV`, no
 * functions from the environment), since this layer has the capabilities bubblewrap needs to
 * start the inner one.
 */
export function bridgeScript(socat: string): string {
  const q = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const listening = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
  return `# hermes-extensions: a sandboxed command's bridge to the hook daemon's network filter
dir=$1
shift
fail() {
  echo "hermes sandbox: $1; the command did not run. The hook daemon keeps the sandbox's network filter: run the command again (the next hook starts the daemon), or turn the daemon off (HERMES_DAEMON=0) for the sandbox's own filter." >&2
  exit 126
}
# A wait without a process per wait: a read that times out on a pipe nobody writes.
exec 7<> <(:)
pause() { read -r -t "$1" -u 7 _; }
for port in ${HTTP_PORT} ${SOCKS_PORT}; do
  ${q(socat)} TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$dir/${FILTER_SOCKET}" </dev/null >/dev/null 2>&1 7<&- 9<&- &
done
# The socket is there while the filter runs: it removes it as it ends, or the daemon does.
n=0
until [ -S "$dir/${FILTER_SOCKET}" ]; do
  n=$((n + 1))
  [ "$n" -lt 100 ] || fail "the network filter at $dir is not running"
  pause 0.1
done
# The token has no newline after it: read ends with a status of 1, having read it.
token=
read -r token <"$dir/${FILTER_TOKEN}"
[ -n "$token" ] || fail "the network filter's token at $dir cannot be read"
up() {
  http= socks=
  while read -r line; do
    case $line in
      *'${listening(HTTP_PORT)}00000000:0000 0A'*) http=1 ;;
      *'${listening(SOCKS_PORT)}00000000:0000 0A'*) socks=1 ;;
    esac
  done </proc/net/tcp
  [ -n "$http" ] && [ -n "$socks" ]
}
n=0
until up; do
  n=$((n + 1))
  [ "$n" -lt 400 ] || fail "the bridge to the network filter did not start"
  pause 0.005
done
exec 7<&-
proxy="http://srt:$token@localhost:${HTTP_PORT}"
export HTTP_PROXY=$proxy HTTPS_PROXY=$proxy http_proxy=$proxy https_proxy=$proxy
export ALL_PROXY=$proxy all_proxy=$proxy GRPC_PROXY=$proxy
export NO_PROXY=localhost,127.0.0.1,::1 no_proxy=localhost,127.0.0.1,::1
export GIT_CONFIG_PARAMETERS="'http.proxyAuthMethod=basic'"
export GIT_SSH_COMMAND="ssh -o ProxyCommand='${socat.replaceAll("'", '')} - PROXY:localhost:%h:%p,proxyport=${HTTP_PORT},proxyauth=srt:$token'"
exec "$@"
`;
}
