import type { ServerResponse } from 'node:http';
import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLoopbackServers, sendJson, serveOnLoopback } from '../e2e/loopback.js';
import { tree } from '../support/fixtures.js';

/**
 * A Rego policy served by OPA, declared in config (docs/policies.md, rego). The OPA binary cannot
 * be installed here, so a stand-in serves OPA's documented Data API
 * (https://www.openpolicyagent.org/docs/rest-api#get-a-document-with-input): `POST
 * /v1/data/<path>` with `{"input": …}`, answered `{"result": …}`, and `{}` (no `result`) when the
 * document is not defined for that input. Its "policy" is the rule below, in JavaScript.
 */
const pending: ServerResponse[] = [];
afterEach(async () => {
  for (const response of pending.splice(0)) response.destroy();
  await closeLoopbackServers();
});

type Rule = (input: Record<string, unknown>) => unknown;

/** OPA's Data API at one document path, deciding by `rule` (undefined: the document is not defined). */
async function opa(path: string, rule: Rule) {
  const asked: Array<{ url: string; input: Record<string, unknown> }> = [];
  const port = await serveOnLoopback((request, body, response) => {
    if (request.method !== 'POST' || request.url !== `/v1/data/${path}`) {
      sendJson(response, 404, { code: 'resource_not_found' });
      return;
    }
    const { input } = JSON.parse(body) as { input: Record<string, unknown> };
    asked.push({ url: request.url, input });
    const result = rule(input);
    if (result === 'hang') pending.push(response);
    else sendJson(response, 200, result === undefined ? {} : { result });
  });
  return { server: `http://127.0.0.1:${port}`, asked };
}

/** workflow-guard's rule, as a Rego policy would state it: no force push. */
const noForcePush: Rule = (input) => {
  const command = String((input.toolArgs as { command?: unknown })?.command ?? '');
  return command.includes('push --force')
    ? { allow: false, reason: 'force pushes are not allowed' }
    : { allow: true };
};

async function decide(server: string, command: string, extra = '', path = 'hermes/decision') {
  const home = tree({
    'config.yaml': `extensions:\n  opa:\n    kind: rego\n    server: ${server}\n    path: ${path}\n${extra}`,
  });
  const runtime = await loadRuntime({
    home,
    cwd: tree({ '.git/HEAD': '' }),
    logger: memoryLogger(),
  });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
    t.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
  );
  return { runtime, outcome };
}

describe('a declared Rego policy on an OPA server', () => {
  it('asks the document with the event as input, and passes what it allows', async () => {
    const { server, asked } = await opa('hermes/decision', noForcePush);
    const { outcome } = await decide(server, 'git push');
    expect(outcome.blocked).toBe(false);
    expect(asked[0]?.input).toMatchObject({
      hook: 'intercept_tool_call',
      toolName: 'bash',
      toolArgs: { command: 'git push' },
    });
  });

  it("blocks with the policy's reason", async () => {
    const { server } = await opa('hermes/decision', noForcePush);
    const { outcome } = await decide(server, 'git push --force');
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'opa',
      message: 'force pushes are not allowed',
    });
  });

  it('reads a boolean document (an `allow` rule) as allow or deny', async () => {
    const { server } = await opa(
      'hermes/allow',
      (input) => !String(input.toolName).startsWith('b'),
    );
    const { outcome } = await decide(server, 'ls', '', 'hermes/allow');
    expect(outcome).toMatchObject({ blocked: true, message: 'opa (rego hermes/allow) denied it' });
  });

  it('takes a document that is not defined for the input as no decision: default says', async () => {
    const { server } = await opa('hermes/decision', () => undefined);
    expect((await decide(server, 'ls')).outcome.blocked).toBe(false);
    const strict = await decide(server, 'ls', '    default: block\n');
    expect(strict.outcome).toMatchObject({ blocked: true, blockedBy: 'opa' });
  });

  it('fails closed on a result it does not understand, or a path the server does not have', async () => {
    const { server } = await opa('hermes/decision', () => 'yes');
    const odd = await decide(server, 'ls');
    expect(odd.outcome).toMatchObject({ blocked: true, blockedBy: 'opa' });
    expect(odd.outcome.blocked && odd.outcome.message).toContain('"yes"');
    const missing = await decide(server, 'ls', '', 'hermes/other');
    expect(missing.outcome.blocked && missing.outcome.message).toContain('HTTP 404');
  });

  it('fails closed when the server does not answer in time', async () => {
    const { server } = await opa('hermes/decision', () => 'hang');
    const { outcome } = await decide(server, 'ls', '    timeout_ms: 200\n');
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'opa' });
  });

  it('refuses a path that is not a data path, naming the config file', async () => {
    const { runtime } = await decide('http://127.0.0.1:1', 'ls', '', '../v1/policies');
    expect(runtime.extensions[0]?.reason).toContain('extensions.opa.path');
    expect(runtime.extensions[0]?.reason).toContain('config.yaml');
  });
});

/**
 * The compiled form (`bundle: policy.wasm`) runs with OPA's wasm runner. No compiled policy can be
 * built here (that takes `opa build`), so only its refusals are tested: the docs say so.
 */
describe('a declared Rego bundle', () => {
  const load = async (files: Record<string, string>, extra = '') => {
    const home = tree({
      ...files,
      'config.yaml': `extensions:\n  opa:\n    kind: rego\n    bundle: policy.wasm\n${extra}`,
    });
    const runtime = await loadRuntime({
      home,
      cwd: tree({ '.git/HEAD': '' }),
      logger: memoryLogger(),
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } }),
    );
    return { home, runtime, outcome };
  };

  it('refuses a file that is not a compiled policy, naming it, and refuses tool calls', async () => {
    const { home, runtime, outcome } = await load({ 'policy.wasm': 'package hermes\n' });
    expect(runtime.extensions[0]).toMatchObject({ name: 'opa', status: 'error' });
    expect(runtime.extensions[0]?.reason).toContain(
      `${home}/policy.wasm is not a compiled Rego policy`,
    );
    expect(outcome.blocked).toBe(true);
  });

  it('refuses a declaration with both a server and a bundle', async () => {
    const { runtime } = await load({ 'policy.wasm': '' }, '    server: http://127.0.0.1:8181\n');
    expect(runtime.extensions[0]?.reason).toContain('give either server');
  });
});
