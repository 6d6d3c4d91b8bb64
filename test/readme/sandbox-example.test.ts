import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { runShell, sandbox } from '../support/sandbox.js';
import { docExample, writeExample } from './doc-blocks.js';

describe("docs/policy.md's sandbox example", () => {
  const file = writeExample('sandbox-example.ts', docExample('sandbox').text);

  it.runIf(sandbox.available)(
    'runs a shell call in the sandbox: build/ written, src/ not, also for a line the model changed',
    async () => {
      const { default: extension } = (await import(file)) as { default: ExtensionDefinition };
      const project = tree({ 'src/a.ts': 'before\n', 'build/.keep': '' });
      const runtime = await createRuntime({ extensions: [extension], cwd: project });
      const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
        t.interceptToolCall({
          toolName: 'bash',
          toolArgs: { command: 'echo out > build/x; echo changed > src/a.ts' },
        }),
      );
      expect(outcome).toMatchObject({ blocked: false, changed: true });
      runShell(outcome.value.command as string, project);
      expect(readFileSync(join(project, 'build/x'), 'utf8')).toBe('out\n');
      expect(readFileSync(join(project, 'src/a.ts'), 'utf8')).toBe('before\n');
      // The model sends the sandboxed line with a write after it. The line names what it holds
      // read-only where it does not exist yet (build/.mcp.json, an MCP client's config: protected
      // ground), and is no longer the line as made: the protected-ground rule refuses it, and the
      // write cannot land.
      const changed = await runtime.runTurn({ sessionId: 's' }, (t) =>
        t.interceptToolCall({
          toolName: 'bash',
          toolArgs: { command: `${outcome.value.command}; echo changed > src/a.ts` },
        }),
      );
      expect(changed).toMatchObject({ blocked: true, blockedBy: 'hermes' });
      expect(changed.blocked && changed.message).toMatch(/\.mcp\.json, which is protected ground/);
      expect(readFileSync(join(project, 'src/a.ts'), 'utf8')).toBe('before\n');
      await runtime.close();
    },
  );
});
