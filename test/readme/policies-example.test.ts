import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { docExample } from './doc-blocks.js';

/** docs/policies.md's Cedar policy, declared in a user's config, decides as the page says. */
describe("docs/policies.md's Cedar policy", () => {
  const home = () =>
    tree({
      'policies/agent.cedar': docExample('cedar-policy').text,
      'config.yaml':
        'extensions:\n  agent-policy:\n    kind: cedar\n    policy: policies/agent.cedar\n',
    });

  const table: Array<[string, Record<string, unknown>, string | undefined]> = [
    [
      'bash',
      { command: 'git push --force origin main' },
      'force pushes rewrite shared history; push a new commit instead',
    ],
    ['bash', { command: 'git push origin main' }, undefined],
    [
      'write',
      { file_path: 'config/.env', content: 'x' },
      'the agent may not read or write .env files',
    ],
    ['read', { file_path: 'src/a.ts' }, undefined],
  ];

  it.each(table)('%s %j', async (toolName, toolArgs, reason) => {
    const runtime = await loadRuntime({
      home: home(),
      cwd: tree({ '.git/HEAD': '' }),
      logger: memoryLogger(),
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName, toolArgs }),
    );
    expect(outcome.blocked ? outcome.message : undefined).toBe(reason);
  });

  it('lets subagents read only', async () => {
    const runtime = await loadRuntime({
      home: home(),
      cwd: tree({ '.git/HEAD': '' }),
      logger: memoryLogger(),
    });
    const agent = { id: 'agent-1', type: 'Explore' };
    const [write, read] = await runtime.runTurn({ sessionId: 's' }, async (t) => [
      await t.interceptToolCall({ toolName: 'write', toolArgs: { file_path: 'a.ts' }, agent }),
      await t.interceptToolCall({ toolName: 'read', toolArgs: { file_path: 'a.ts' }, agent }),
    ]);
    expect(write).toMatchObject({ blocked: true, message: 'subagents may only read' });
    expect(read?.blocked).toBe(false);
  });
});
