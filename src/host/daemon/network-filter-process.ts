import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport } from '../../modules/native-import.js';
import { optionalPeer } from '../../optional-peers.js';
import { FILTER_SOCKET, FILTER_TOKEN } from '../../policy/sandbox/network-filter.js';

/**
 * One network filter of the hook daemon (network-filters.ts), a process of its own started with
 * its folder and its domains: the sandbox runtime's filtering proxies, started through its public
 * API (`SandboxManager.initialize` with those domains allowed, everything else denied), and a Unix
 * socket in the folder that carries each connection to them — what the runtime's `srt` line
 * starts for each command, started once. The runtime's proxies ask for a token, written beside
 * the socket for the bridge script to hand the command (network-filter.ts). It ends when the
 * daemon does: its IPC channel closes when the daemon exits or is killed, and then the socket is
 * removed and the proxies closed, so a line pointed at it fails rather than reaching anything.
 */
async function main(): Promise<void> {
  const [dir, domainsJson] = process.argv.slice(2);
  if (dir === undefined || domainsJson === undefined || process.send === undefined) {
    throw new Error(
      'usage: network-filter-process <folder> <domains as JSON> (with an IPC channel)',
    );
  }
  const domains = JSON.parse(domainsJson) as string[];
  const folder = optionalPeer('@anthropic-ai/sandbox-runtime').folder;
  if (folder === undefined) throw new Error('@anthropic-ai/sandbox-runtime is not installed');
  const runtime = (await nativeImport(
    pathToFileURL(join(folder, 'dist', 'index.js')).href,
  )) as typeof import('@anthropic-ai/sandbox-runtime');
  const manager = runtime.SandboxManager;
  await manager.initialize({
    network: { allowedDomains: domains, deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  });
  const port = manager.getProxyPort();
  const token = manager.getProxyAuthToken();
  if (port === undefined || token === undefined) {
    throw new Error("the sandbox runtime's proxy did not start");
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const socketPath = join(dir, FILTER_SOCKET);
  const tokenPath = join(dir, FILTER_TOKEN);
  // The token before the socket: the bridge reads it once the socket answers.
  const temporary = `${tokenPath}.${process.pid}.tmp`;
  writeFileSync(temporary, token, { mode: 0o600 });
  renameSync(temporary, tokenPath);
  rmSync(socketPath, { force: true });
  const server = createServer((inside: Socket) => {
    const proxy = connect(port, '127.0.0.1');
    const end = () => {
      inside.destroy();
      proxy.destroy();
    };
    inside.on('error', end).on('close', end);
    proxy.on('error', end).on('close', end);
    inside.pipe(proxy).pipe(inside);
  });
  let ending = false;
  const stop = () => {
    if (ending) return;
    ending = true;
    server.close();
    rmSync(socketPath, { force: true });
    rmSync(tokenPath, { force: true });
    void manager.reset().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  if (!process.connected) return stop();
  process.send({ ready: true });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `hermes daemon: the sandbox's network filter failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
