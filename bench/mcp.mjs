// One `tools/call` through `hermes mcp proxy` against the same call made to the server direct:
// the SDK's client over stdio, the reference filesystem server (`read_text_file` of a small
// file), workflow-guard and secrets-guard loaded in the proxy (the read passes one and is
// scanned for secrets by the other). Each side makes BENCH_MCP_WARMUP calls first, then
// BENCH_MCP_CALLS measured ones, one at a time. Run by bench/run.mjs; the samples (ms) go to
// stdout as one JSON line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

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

async function timedCalls(args) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...process.env, HERMES_HOME: home },
      stderr: 'ignore',
    }),
  );
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
  const direct = await timedCalls([...server, project]);
  const proxied = await timedCalls([
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
  ]);
  process.stdout.write(`${JSON.stringify({ direct, proxied, warmup: WARMUP })}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
