import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * A Cedar policy declared in the user's config, with no code of its own (docs/policies.md, cedar),
 * evaluated by the real engine (@cedar-policy/cedar-wasm): a forbid blocks with its @reason, a
 * permit passes, no decision follows `default`, a malformed policy is a load error naming the
 * file, and a policy that fails at call time fails the call closed.
 */
const POLICY = `
@id("no-force-push")
@reason("force pushes rewrite shared history; push a new commit instead")
forbid(principal, action == Hermes::Action::"bash", resource)
when { context.command like "*push --force*" };

@id("no-secrets")
@reason("the agent may not touch .env files")
forbid(principal, action in Hermes::Action::"intercept_tool_call", resource is Hermes::Path)
when { resource.name like "*.env" };

@id("tools")
permit(principal, action in Hermes::Action::"intercept_tool_call", resource)
when { context.tool == "bash" || context.tool == "write" };
`;

function homeWith(policy: string, extra = ''): string {
  return tree({
    'policies/agent.cedar': policy,
    'config.yaml': `extensions:\n  cedar-guard:\n    kind: cedar\n    policy: policies/agent.cedar\n${extra}`,
  });
}

async function decide(home: string, call: { toolName: string; toolArgs: Record<string, unknown> }) {
  const runtime = await loadRuntime({
    home,
    cwd: tree({ '.git/HEAD': '' }),
    logger: memoryLogger(),
  });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall(call));
  return { runtime, outcome };
}

describe('a declared Cedar policy', () => {
  it('passes a call a permit allows', async () => {
    const { runtime, outcome } = await decide(homeWith(POLICY), {
      toolName: 'bash',
      toolArgs: { command: 'git push' },
    });
    expect(runtime.extensions).toMatchObject([{ name: 'cedar-guard', status: 'enabled' }]);
    expect(outcome.blocked).toBe(false);
  });

  it('blocks with the forbidding policy’s @reason', async () => {
    const { outcome } = await decide(homeWith(POLICY), {
      toolName: 'bash',
      toolArgs: { command: 'git push --force origin main' },
    });
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'cedar-guard',
      message: 'force pushes rewrite shared history; push a new commit instead',
    });
  });

  it('judges each path the call names as a resource', async () => {
    const { outcome } = await decide(homeWith(POLICY), {
      toolName: 'write',
      toolArgs: { file_path: 'config/prod.env', content: 'x' },
    });
    expect(outcome).toMatchObject({ blocked: true, message: 'the agent may not touch .env files' });
  });

  it('passes what no policy decides, unless the declaration says default: block', async () => {
    const call = { toolName: 'read', toolArgs: { file_path: 'src/a.ts' } };
    expect((await decide(homeWith(POLICY), call)).outcome.blocked).toBe(false);
    const strict = await decide(homeWith(POLICY, '    default: block\n'), call);
    expect(strict.outcome).toMatchObject({ blocked: true, blockedBy: 'cedar-guard' });
    expect(strict.outcome.blocked && strict.outcome.message).toContain('default: block');
  });

  it('refuses a malformed policy at load, naming the file, and refuses tool calls', async () => {
    const home = homeWith('forbid(principal, action, resource');
    const { runtime, outcome } = await decide(home, {
      toolName: 'bash',
      toolArgs: { command: 'ls' },
    });
    const [info] = runtime.extensions;
    expect(info).toMatchObject({ name: 'cedar-guard', status: 'error' });
    expect(info?.reason).toContain(`${home}/policies/agent.cedar`);
    expect(outcome.blocked).toBe(true);
  });

  it('fails closed when a policy cannot be evaluated (Cedar would skip that forbid)', async () => {
    const home = homeWith(`
@reason("no deletes")
forbid(principal, action, resource) when { context.args.recursive == true };
permit(principal, action, resource);
`);
    // `recursive` is missing: the forbid errors, and Cedar alone would allow by the permit.
    const { outcome } = await decide(home, { toolName: 'bash', toolArgs: { command: 'rm x' } });
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'cedar-guard' });
    expect(outcome.blocked && outcome.message).toContain('failed to evaluate');
  });

  it('names the config file and key of a wrong declaration', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  cedar-guard:\n    kind: cedar\n    polcy: a.cedar\n',
    });
    const { runtime } = await decide(home, { toolName: 'bash', toolArgs: { command: 'ls' } });
    const reason = runtime.extensions[0]?.reason ?? '';
    expect(reason).toContain(`${home}/config.yaml`);
    expect(reason).toContain('extensions.cedar-guard.policy');
  });

  it('runs in shadow mode: decides, records, never blocks', async () => {
    const { outcome } = await decide(homeWith(POLICY, '    mode: shadow\n'), {
      toolName: 'bash',
      toolArgs: { command: 'git push --force' },
    });
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace[0]?.shadow).toMatchObject({ action: 'block' });
  });

  it('is called only for the tools it names', async () => {
    const home = homeWith(POLICY, '    default: block\n    tools: [bash]\n');
    expect(
      (await decide(home, { toolName: 'read', toolArgs: { file_path: 'a' } })).outcome.blocked,
    ).toBe(false);
  });
});

describe('a declared Cedar policy with a schema', () => {
  const schema = `namespace Hermes {
  entity Agent;
  entity Command { name: String };
  entity Path { name: String };
  action "intercept_tool_call";
  action "bash" in ["intercept_tool_call"] appliesTo {
    principal: Agent,
    resource: [Command, Path],
    context: {
      hook: String, tool: String, session_id: String, turn_id: String, main_agent: Bool,
      paths: Set<String>, command?: String, args: { command?: String }, state: {}
    }
  };
}
`;
  const home = (policy: string) =>
    tree({
      'agent.cedar': policy,
      'agent.cedarschema': schema,
      'config.yaml':
        'extensions:\n  cedar-guard:\n    kind: cedar\n    policy: agent.cedar\n    schema: agent.cedarschema\n',
    });

  it('validates the policy and the requests against it, and decides', async () => {
    const policy =
      '@reason("no rm")\nforbid(principal, action == Hermes::Action::"bash", resource is Hermes::Command) when { resource.name like "rm*" };\n';
    const { outcome } = await decide(home(policy), {
      toolName: 'bash',
      toolArgs: { command: 'rm -rf x' },
    });
    expect(outcome).toMatchObject({ blocked: true, message: 'no rm' });
  });

  it('refuses at load a policy the schema does not allow, naming both files', async () => {
    const dir = home(
      'forbid(principal, action == Hermes::Action::"bash", resource) when { context.nope == 1 };\n',
    );
    const { runtime } = await decide(dir, { toolName: 'bash', toolArgs: { command: 'ls' } });
    const reason = runtime.extensions[0]?.reason ?? '';
    expect(reason).toContain(
      `${dir}/agent.cedar does not match the schema ${dir}/agent.cedarschema`,
    );
    expect(reason).toContain('nope');
  });

  it('fails closed on a request the schema does not allow', async () => {
    const policy = 'permit(principal, action, resource);\n';
    const { outcome } = await decide(home(policy), {
      toolName: 'bash',
      toolArgs: { command: 'ls', timeout: 5 },
    });
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'cedar-guard' });
    expect(outcome.blocked && outcome.message).toContain('could not decide');
  });
});
