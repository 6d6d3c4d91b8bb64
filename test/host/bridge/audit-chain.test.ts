import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyAuditChain } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { bridgeProcess } from '../../support/bridge-process.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, root } from '../../support/run-bin.js';

describe.runIf(built)('hermes extensions serve --stdio and the audit chain', () => {
  it('writes each decision once, as one chain, by the time the bridge exits', async () => {
    const home = tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`,
      'extensions/no-writes.ts': tsExtension(
        'no-writes',
        `hermes.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });`,
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    const bridge = bridgeProcess(home, project);
    expect(await bridge.call(1, 'turn/start', { session_id: 's', turn_id: 't' })).toMatchObject({
      result: { turn_id: 't' },
    });
    for (const [id, tool] of [
      [2, 'write'],
      [3, 'read'],
      [4, 'write'],
    ] as const) {
      await bridge.call(id, 'intercept_tool_call', {
        turn_id: 't',
        tool_name: tool,
        tool_args: { path: `f${id}` },
        tool_call_id: `c${id}`,
      });
    }
    bridge.child.stdin.end();
    expect(await bridge.exited, bridge.stderr()).toBe(0);
    const file = join(project, '.hermes/audit/audit.jsonl');
    const decisions = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.event === 'hook_decision')
      .map((line) => line.tool_call_id);
    // A call no handler took part in (the read) is no decision, as in every host.
    expect(decisions).toEqual(['c2', 'c4']);
    expect(verifyAuditChain([{ path: file, bytes: readFileSync(file) }])).toMatchObject({
      status: 'ok',
    });
  });
});
