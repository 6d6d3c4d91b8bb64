import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host and Origin headers a request to the proxy may carry (the SDK transport's
 * `allowedHosts` and `allowedOrigins`): this machine's loopback names, and the address it is bound
 * to; bound to every address (`0.0.0.0`, `::`), each address of this machine and its host name.
 * A name a web page controls is none of them, so a page that rebinds its name to this machine
 * is refused (DNS rebinding).
 */
export function servedNames(
  bound: string,
  port: number,
): { allowedHosts: string[]; allowedOrigins: string[] } {
  const names = new Set(LOOPBACK);
  if (bound === '0.0.0.0' || bound === '::') {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const { address, family } of addresses ?? []) names.add(bracketed(address, family));
    }
  } else {
    names.add(bracketed(bound, bound.includes(':') ? 'IPv6' : 'IPv4'));
  }
  // A browser leaves the port out of Host and Origin when it is the scheme's default.
  const withPort = (name: string) => (port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]);
  const hosts = [...names].flatMap(withPort);
  return { allowedHosts: hosts, allowedOrigins: hosts.map((host) => `http://${host}`) };
}

function bracketed(address: string, family: string): string {
  return family === 'IPv6' ? `[${address}]` : address;
}
