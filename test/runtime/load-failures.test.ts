import { join } from 'node:path';
import { loadRuntime, rewrite, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { tree, tsExtension } from '../support/fixtures.js';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';

const shouter = tsExtension(
  'shouter',
  `hermes.on('transform_user_input', (e) => ({ action: 'rewrite', value: e.userMessage.toUpperCase() }));`,
);
/** A guard whose file does not even parse: the bypass is that it silently stops guarding. */
const brokenGuard = 'export default {';

function homeWith(config: string, extensions: Record<string, string>) {
  const files: Record<string, string> = { 'config.yaml': config };
  for (const [name, source] of Object.entries(extensions)) files[`extensions/${name}.ts`] = source;
  return tree(files);
}

describe('an enabled extension that failed to load (extensions.on_load_error)', () => {
  it('blocks every tool call by default, naming the extension, its file and the fix; prompts still run', async () => {
    const home = homeWith('extensions: {}\n', { guard: brokenGuard, shouter });
    const logger = memoryLogger();
    const runtime = await loadRuntime({ home, cwd: tree(), logger });
    expect(runtime.loadFailures).toMatchObject([
      { extension: 'guard', file: join(home, 'extensions/guard.ts') },
    ]);
    await inTurn(runtime, async (turn) => {
      const tool = await turn.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } });
      expect(tool).toMatchObject({ blocked: true, blockedBy: 'guard' });
      expect(blockedOutcome(tool).message).toContain(
        `extension "guard" (${join(home, 'extensions/guard.ts')})`,
      );
      expect(blockedOutcome(tool).message).toMatch(/hermes extensions disable guard/);
      expect(blockedOutcome(tool).message).toMatch(/on_load_error: warn/);
      const prompt = await turn.transformUserInput('hello');
      expect(prompt).toMatchObject({ blocked: false, value: 'HELLO' });
    });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      /"guard".*every tool call is refused/s,
    );
  });

  it('lets tool calls run, with a warning, under on_load_error: warn', async () => {
    const home = homeWith('extensions:\n  on_load_error: warn\n', { guard: brokenGuard });
    const logger = memoryLogger();
    const runtime = await loadRuntime({ home, cwd: tree(), logger });
    const tool = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(tool).toMatchObject({ blocked: false });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      /"guard".*tool calls run without it/s,
    );
  });

  it('rejects an on_load_error that is neither block nor warn, naming the file and key', async () => {
    const home = homeWith('extensions:\n  on_load_error: ignore\n', {});
    await expect(loadRuntime({ home, cwd: tree(), logger: memoryLogger() })).rejects.toThrow(
      /config\.yaml[\s\S]*extensions\.on_load_error/,
    );
  });

  it('does not count a disabled or an untrusted extension as a failure', async () => {
    const home = homeWith('extensions:\n  disabled: [guard]\n', { guard: brokenGuard });
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': brokenGuard });
    const runtime = await loadRuntime({ home, cwd: project, logger: memoryLogger() });
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([
      ['guard', 'disabled'],
      ['local', 'untrusted'],
    ]);
    expect(runtime.loadFailures).toEqual([]);
    expect(await inTurn(runtime, (t) => t.interceptToolCall(write()))).toMatchObject({
      blocked: false,
    });
  });

  it('counts a configured path that does not exist', async () => {
    const home = homeWith('extensions:\n  paths: [./moved-away/workflow-guard]\n', {});
    const runtime = await loadRuntime({ home, cwd: tree(), logger: memoryLogger() });
    const tool = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(tool).toMatchObject({ blocked: true, blockedBy: 'hermes' });
    expect(blockedOutcome(tool).message).toMatch(
      /moved-away\/workflow-guard.*does not exist.*extensions\.paths/,
    );
  });

  it('blocks in memory too: a setup that throws, a config that fails its schema', async () => {
    const strict = {
      name: 'strict',
      configSchema: z.object({ limit: z.number() }),
      setup() {},
    };
    for (const [extension, config] of [
      [
        ext('thrower', () => {
          throw new Error('no database');
        }),
        {},
      ],
      [strict, { extensions: { strict: { limit: 'ten' } } }],
    ] as const) {
      const { runtime } = await runtimeOf([extension], { config });
      const tool = await inTurn(runtime, (t) => t.interceptToolCall(write()));
      expect(tool).toMatchObject({ blocked: true, blockedBy: extension.name });
    }
  });

  it('keeps the tool from running in the reference loop, and tells the model why', async () => {
    const home = homeWith('extensions: {}\n', { guard: brokenGuard });
    const runtime = await loadRuntime({ home, cwd: tree(), logger: memoryLogger() });
    const execute = vi.fn(() => 'wrote');
    const model = scriptedModel([
      { content: 'Writing.', toolCalls: [toolCall('write', { path: 'a.ts' }, 'c1')] },
      { content: 'Could not.' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'sys',
      userMessage: 'write a.ts',
      model,
      tools: { write: { execute } },
    });
    expect(execute).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ blocked: true, blockedBy: 'guard' });
    expect(result.toolCalls[0]?.result).toMatch(/extension \\"guard\\".*failed to load/);
  });

  it('runs the guard before any other handler, so a rewriter cannot act first', async () => {
    const rewriter = vi.fn((e: { toolArgs: Record<string, unknown> }) =>
      rewrite({ ...e.toolArgs, x: 1 }),
    );
    const { runtime } = await runtimeOf([
      ext('early', (h) => h.on('intercept_tool_call', rewriter, { priority: -1e9 })),
      ext('thrower', () => {
        throw new Error('boom');
      }),
    ]);
    const tool = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(tool).toMatchObject({ blocked: true, blockedBy: 'thrower', changed: false });
    expect(rewriter).not.toHaveBeenCalled();
  });
});
