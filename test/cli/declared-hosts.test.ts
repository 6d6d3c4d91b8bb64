import { describe, expect, it } from 'vitest';
import { bridgeProcess } from '../support/bridge-process.js';
import { tree } from '../support/fixtures.js';
import { proxied, smallServer } from '../support/mcp.js';
import { built } from '../support/run-bin.js';

/**
 * A declared policy runs in every host as an extension in code does: the same Cedar policy in the
 * user's config decides a call through the bridge (`hermes extensions serve`, the protocol other
 * languages speak) and through `hermes mcp proxy` in front of an MCP server. In process, the hooks
 * and the daemon: cedar.test.ts, test/host/daemon/daemon-declared.test.ts.
 */
const POLICY = `permit(principal, action in Hermes::Action::"intercept_tool_call", resource);
@reason("no secrets on the wire")
forbid(principal, action == Hermes::Action::"echo", resource)
  when { context.args has text && context.args.text like "*secret*" };
`;

const home = () =>
  tree({
    'config.yaml': 'extensions:\n  wire-policy:\n    kind: cedar\n    policy: wire.cedar\n',
    'wire.cedar': POLICY,
  });

describe.runIf(built)('a declared Cedar policy in every host', () => {
  it('through the bridge: passes one echo, blocks the other with the policy’s reason', async () => {
    const { call } = bridgeProcess(home(), tree({ '.git/HEAD': '' }));
    await call(1, 'turn/start', { session_id: 's', turn_id: 't' });
    const echo = (id: number, text: string) =>
      call(id, 'intercept_tool_call', { turn_id: 't', tool_name: 'echo', tool_args: { text } });
    expect(await echo(2, 'hello')).toMatchObject({ result: { blocked: false } });
    expect(await echo(3, 'the secret plan')).toMatchObject({
      result: { blocked: true, blocked_by: 'wire-policy', message: 'no secrets on the wire' },
    });
  }, 30_000);

  it('through the MCP proxy: the server answers one echo and never sees the other', async () => {
    const project = tree({ '.git/HEAD': '' });
    const { client } = await proxied(home(), project, smallServer(tree()));
    const hello = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(hello).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect(hello.isError).not.toBe(true);
    const secret = await client.callTool({ name: 'echo', arguments: { text: 'the secret plan' } });
    expect(secret.isError).toBe(true);
    expect(JSON.stringify(secret.content)).toContain('no secrets on the wire');
    expect(JSON.stringify(secret.content)).not.toContain('"the secret plan"');
  }, 30_000);
});
