import { basename } from 'node:path';

/**
 * Programs that run another program named in their arguments: the server is that one, so
 * `node server.js` is "server", not "node", and `npx -y @modelcontextprotocol/server-filesystem`
 * is "server-filesystem". Their own subcommands (`npm exec`, `uv run`, `deno run`) are skipped.
 */
const RUNNERS = new Set([
  'node',
  'nodejs',
  'bun',
  'bunx',
  'deno',
  'npx',
  'npm',
  'pnpm',
  'pnpx',
  'yarn',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'uv',
  'uvx',
  'pipx',
]);
const RUNNER_SUBCOMMANDS = new Set(['exec', 'run', 'dlx', 'x', 'tool']);
/** Options of the runners that take a value, which is not the server. */
const WITH_VALUE = new Set(['-p', '--package', '--from', '--with', '-r', '--require', '--import']);

/**
 * The default name of the MCP server `command args…` starts (docs/mcp.md): the package or
 * script it runs, by its base name without scope, version or extension; else the command's own.
 */
export function defaultServerName(command: string, args: readonly string[]): string {
  const program = bare(command);
  if (!RUNNERS.has(program.toLowerCase())) return program;
  for (let at = 0; at < args.length; at++) {
    const word = args[at] as string;
    if (word === '-m' && args[at + 1] !== undefined) return bare(args[at + 1] as string);
    if (WITH_VALUE.has(word)) {
      at++;
      continue;
    }
    if (word.startsWith('-') || word === '--') continue;
    if (RUNNER_SUBCOMMANDS.has(word)) continue;
    const name = bare(word);
    if (name !== '') return name;
  }
  return program;
}

/** `@scope/pkg@1.2.3` → `pkg`, `./dist/server.mjs` → `server`, `C:\\bin\\srv.exe` → `srv`. */
function bare(word: string): string {
  const unscoped = word.startsWith('@') ? word.slice(word.indexOf('/') + 1) : word;
  const unversioned = unscoped.replace(/@[^/@]*$/, '');
  return basename(unversioned.replaceAll('\\', '/')).replace(/\.(?:[cm]?[jt]s|py|exe|cmd)$/i, '');
}
