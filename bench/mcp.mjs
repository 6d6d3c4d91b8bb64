// One `tools/call` through `hermes mcp proxy` against the same call made to the server direct:
// the SDK's client over stdio, the reference filesystem server (`read_text_file` of a small
// file), workflow-guard and secrets-guard loaded in the proxy (the read passes one and is
// scanned for secrets by the other). Then the same over Streamable HTTP: the SDK's client to
// the tests' HTTP server (test/support/mcp-http-server.mjs, whose `read_text_file` reads as the
// filesystem server's does) direct, and to `hermes mcp proxy --http 0 --url` in front of it.
// Each side makes BENCH_MCP_WARMUP calls first, then BENCH_MCP_CALLS measured ones, one at a
// time. Run by bench/run.mjs; the samples (ms) go to stdout as one JSON line.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_MCP_WARMUP ?? 1000);
const server = [join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')];

const work = mkdtempSync(join(tmpdir(), 'hermes-mcp-bench-'));
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(join(project, 'src'), { recursive: true });
mkdirSync(join(project, '.git'));
mkdirSync(home);
writeFileSync(join(project, 'src/app.ts'), 'export const app = 1;\n'.repeat(20));
writeFileSync(
  join(home, 'config.yaml'),
  `extensions:\n  paths: [${['workflow-guard', 'secrets-guard'].map((name) => JSON.stringify(join(root, 'extensions', name))).join(', ')}]\n`,
);

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = (samples) => ({
  p50: percentile(samples, 50),
  p99: percentile(samples, 99),
  n: samples.length,
});

/** `args` run by node with $HERMES_HOME set, once it prints the URL it serves MCP on. */
const children = [];
function serving(args) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, HERMES_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let said = '';
  return new Promise((resolve, reject) => {
    const look = (chunk) => {
      said += chunk;
      const url = /(http:\/\/\S+\/mcp)\b/.exec(said)?.[1];
      if (url !== undefined) resolve(new URL(url));
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}):\n${said}`)));
  });
}

const stdio = (args) =>
  new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...process.env, HERMES_HOME: home },
    stderr: 'ignore',
  });

async function timedCalls(transport) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const call = { name: 'read_text_file', arguments: { path: join(project, 'src/app.ts') } };
  const samples = [];
  try {
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const started = performance.now();
      const result = await client.callTool(call);
      if (i >= WARMUP) samples.push(performance.now() - started);
      if (result.isError) throw new Error(`the read failed: ${JSON.stringify(result.content)}`);
    }
  } finally {
    await client.close();
  }
  return summary(samples);
}

try {
  const direct = await timedCalls(stdio([...server, project]));
  const proxied = await timedCalls(
    stdio([
      join(root, 'bin', 'hermes.js'),
      'mcp',
      'proxy',
      '--name',
      'filesystem',
      '--cwd',
      project,
      '--',
      process.execPath,
      ...server,
      project,
    ]),
  );
  const remote = await serving([join(root, 'test/support/mcp-http-server.mjs')]);
  const httpDirect = await timedCalls(new StreamableHTTPClientTransport(remote));
  const proxy = await serving([
    join(root, 'bin', 'hermes.js'),
    'mcp',
    'proxy',
    '--http',
    '0',
    '--cwd',
    project,
    '--url',
    remote.href,
  ]);
  const httpProxied = await timedCalls(new StreamableHTTPClientTransport(proxy));
  process.stdout.write(
    `${JSON.stringify({ direct, proxied, http: { direct: httpDirect, proxied: httpProxied }, warmup: WARMUP })}\n`,
  );
} finally {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
}
