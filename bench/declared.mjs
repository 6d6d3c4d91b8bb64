// The cost of one decision by a policy declared in config (docs/policies.md), per tool call, in
// process, against the same rule written in TypeScript: a Cedar policy (cedar-wasm), a Rego
// document on an OPA server (a stand-in on loopback that follows OPA's Data API: the HTTP round
// trip is most of it), and a judge's answer kept for the session (a cache hit, after the one
// model request). Prints one JSON line: { medians: { name: ns }, ratios: { name: x } }.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { block, createRuntime, defineExtension, loadRuntime } = await import('../dist/index.js');

const RULE = (command) => command.includes('push --force');
const silent = { info() {}, warn() {}, error() {}, debug() {} };

/** One server on loopback answering every POST with `answer(body)`. */
async function serve(answer) {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(JSON.parse(body))));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

const opa = await serve(({ input }) => ({
  result: RULE(String(input.toolArgs?.command))
    ? { allow: false, reason: 'no force push' }
    : { allow: true },
}));
const model = await serve(() => ({
  choices: [{ index: 0, message: { role: 'assistant', content: '{"ok": true}' } }],
}));

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-declared-'));
const project = mkdtempSync(join(tmpdir(), 'hermes-bench-declared-project-'));
writeFileSync(join(project, '.git'), '');
writeFileSync(
  join(home, 'agent.cedar'),
  '@reason("no force push")\nforbid(principal, action, resource is Hermes::Command) when { resource.name like "*push --force*" };\n',
);

async function declared(section) {
  writeFileSync(join(home, 'config.yaml'), `extensions:\n  policy:\n${section}`);
  return loadRuntime({ home, cwd: project, logger: silent });
}

const runtimes = {
  'TypeScript (the same rule in code)': await createRuntime({
    extensions: [
      defineExtension({
        name: 'policy',
        setup(hermes) {
          hermes.on(
            'intercept_tool_call',
            (e) => (RULE(String(e.toolArgs.command)) ? block('no force push') : undefined),
            { phase: 'validate' },
          );
        },
      }),
    ],
    logger: silent,
  }),
  'Cedar (cedar-wasm)': await declared('    kind: cedar\n    policy: agent.cedar\n'),
  'Rego (OPA server on loopback)': await declared(
    `    kind: rego\n    server: ${opa.url}\n    path: hermes/decision\n`,
  ),
  'judge, answer kept for the session': await declared(
    `    kind: judge\n    endpoint: ${model.url}/v1\n    model: m\n    prompt: "{{toolArgs.command}}"\n`,
  ),
};

const call = { toolName: 'bash', toolArgs: { command: 'git push origin main' } };
const ROUNDS = 5;
const medians = {};
for (const [name, runtime] of Object.entries(runtimes)) {
  const n = name.startsWith('Rego') ? 200 : 1000;
  const once = () => runtime.runTurn({ sessionId: 'bench' }, (t) => t.interceptToolCall(call));
  for (let i = 0; i < 50; i++) {
    const outcome = await once();
    if (outcome.blocked) throw new Error(`${name} blocked the call: ${outcome.message}`);
  }
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < n; i++) await once();
    samples.push(((performance.now() - start) / n) * 1e6);
  }
  samples.sort((a, b) => a - b);
  medians[name] = samples[ROUNDS >> 1];
}
const base = medians['TypeScript (the same rule in code)'];
const ratios = Object.fromEntries(Object.entries(medians).map(([name, ns]) => [name, ns / base]));
for (const runtime of Object.values(runtimes)) await runtime.close();
opa.server.close();
model.server.close();
rmSync(home, { recursive: true, force: true });
rmSync(project, { recursive: true, force: true });
console.log(JSON.stringify({ medians, ratios }));
