import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { verifyAuditChain } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built, root, runProcess } from '../support/run-bin.js';

const dist = (path: string) => JSON.stringify(pathToFileURL(join(root, 'dist', path)).href);

/**
 * A host that exits the moment its last turn is decided, as a command-line tool or a worker
 * does: whatever the audit log still had buffered was lost. With `close()` before the exit,
 * every line is on the disk.
 */
describe.runIf(built)(
  'a host that closes the runtime and exits at once',
  { timeout: 30_000 },
  () => {
    it('loses no audit line', async () => {
      const home = tree({
        'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`,
        'extensions/no-writes.ts': tsExtension(
          'no-writes',
          `hermes.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });`,
        ),
      });
      const project = tree({ '.git/HEAD': '' });
      const turns = 20;
      const host = tree({
        'host.mjs': `
import { loadRuntime, runConversation } from ${dist('index.js')};
import { scriptedModel, toolCall } from ${dist('testing/index.js')};
const runtime = await loadRuntime({ cwd: ${JSON.stringify(project)}, home: ${JSON.stringify(home)} });
for (let i = 0; i < ${turns}; i++) {
  await runConversation({
    runtime,
    sessionId: 's' + i,
    userMessage: 'go',
    systemPrompt: '',
    model: scriptedModel([
      { content: '', toolCalls: [toolCall('read', { path: 'a' }, 'r' + i), toolCall('write', { path: 'b' }, 'w' + i)] },
      { content: 'done' },
    ]),
    tools: { read: { execute: () => 'contents' }, write: { execute: () => 'written' } },
  });
}
await runtime.close();
process.exit(0);
`,
      });
      const run = await runProcess(process.execPath, [join(host, 'host.mjs')], { cwd: host });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const file = join(project, '.hermes/audit/audit.jsonl');
      expect(existsSync(file)).toBe(true);
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      // Per turn: the read's outcome, the write's decision, the write's outcome.
      expect(lines).toHaveLength(turns * 3);
      expect(lines.at(-1)).toMatchObject({
        event: 'post_tool_call',
        tool_call_id: `w${turns - 1}`,
      });
      // Each once, and one chain (docs/teams.md, Evidence).
      expect(verifyAuditChain([{ path: file, bytes: readFileSync(file) }])).toMatchObject({
        status: 'ok',
        lines: turns * 3,
      });
    });
  },
);
