import { createRuntime, type ObserverPayload, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../support/helpers.js';
import { drain, hostileErrors, hostileResults, noEscapes } from '../support/hostile-values.js';

/** Whatever an observer throws, rejects with or returns: `emit` returns, nothing escapes. */
const ways: Record<string, () => unknown> = {};
for (const [name, make] of Object.entries(hostileErrors())) {
  ways[`throws ${name}`] = () => {
    throw make();
  };
  ways[`rejects with ${name}`] = () => Promise.reject(make());
}
for (const [name, make] of Object.entries(hostileResults())) ways[`returns ${name}`] = make;

async function observedBy(observer: () => unknown) {
  const seen: ObserverPayload[] = [];
  const logger = memoryLogger();
  const runtime = await createRuntime({
    logger,
    extensions: [
      ext('hostile', (h) => h.observe('*', observer)),
      ext('recorder', (h) => h.observe('*', (payload) => void seen.push(payload))),
    ],
  });
  return { runtime, seen, logger };
}

describe('hostile observers', () => {
  noEscapes();

  for (const [way, observer] of Object.entries(ways)) {
    it(`an observer that ${way} cannot make runtime.emit throw; the others still hear it`, async () => {
      const { runtime, seen, logger } = await observedBy(observer);
      for (let i = 0; i < 3; i++) {
        expect(() => runtime.emit('pre_tool_call', { tool_name: 'read', n: i })).not.toThrow();
      }
      await drain();
      expect(seen.map((p) => p.n)).toEqual([0, 1, 2]);
      const warnings = logger.lines.filter((l) => l.level === 'warn');
      if (way.startsWith('throws') || way.startsWith('rejects')) {
        // Logged once, naming the extension, in words even when the error cannot be read.
        expect(warnings).toHaveLength(1);
        expect(warnings[0]?.message).toMatch(
          /\[hermes:hostile\] observer of every event failed \(.+\)/,
        );
      }
    });

    it(`an observer that ${way} does not disturb a turn of the reference loop`, async () => {
      const { runtime, seen } = await observedBy(observer);
      const result = await runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: 'sys',
        model: scriptedModel([
          { content: '', toolCalls: [toolCall('read', { path: 'a' }, 'r1')] },
          { content: 'done' },
        ]),
        tools: { read: { execute: () => 'contents' } },
      });
      expect(result.finalResponse).toBe('done');
      await drain();
      expect(seen.at(-1)?.event).toBe('on_session_end');
    });
  }
});
