// The Vercel AI SDK's own generateText loop under the shipped workflow-guard: the model's edit of
// src/app.ts is blocked (the model gets the reason as the tool's result), the plan is written,
// then the same edit runs. The model is the SDK's mock, scripted: no network, no API key.
// Run it: node examples/ai-sdk.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { loadRuntime } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';
import { z } from 'zod';
import { throwawaySetup } from './support/throwaway-setup.mjs';

// A project, and a $HERMES_HOME whose config.yaml loads workflow-guard: the runtime of a real
// installation, as `loadRuntime` builds it.
const { base, project, home } = throwawaySetup();
const runtime = await loadRuntime({ cwd: project, home });

const tools = {
  write: tool({
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => {
      mkdirSync(dirname(join(project, path)), { recursive: true });
      writeFileSync(join(project, path), content);
      return `wrote ${path}`;
    },
  }),
};
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const step = (content, finish) => ({
  content,
  finishReason: { unified: finish, raw: undefined },
  usage,
  warnings: [],
});
const write = (id, path) =>
  step(
    [
      {
        type: 'tool-call',
        toolCallId: id,
        toolName: 'write',
        input: JSON.stringify({ path, content: '1. fix it' }),
      },
    ],
    'tool-calls',
  );
const model = new MockLanguageModelV3({
  doGenerate: [
    write('c1', 'src/app.ts'),
    write('c2', 'plans/active/plan.md'),
    write('c3', 'src/app.ts'),
    step([{ type: 'text', text: 'Planned, then edited.' }], 'stop'),
  ],
});

const outputs = [];
const text = await runtime.runTurn({ sessionId: 'ai-sdk-example' }, async (turn) => {
  const call = await withHermes(turn, { prompt: 'fix the login bug', model, tools });
  if (call.blocked) return call.message;
  const result = await generateText({
    model: call.model,
    tools: call.tools,
    prompt: call.prompt,
    stopWhen: stepCountIs(10),
  });
  for (const part of result.steps.flatMap((s) => s.content)) {
    if (part.type !== 'tool-result') continue;
    outputs.push(part.output);
    console.log(`write ${part.input.path} -> ${JSON.stringify(part.output)}`);
  }
  return result.text;
});
console.log(`answer: ${text}`);
await runtime.close();
rmSync(base, { recursive: true, force: true });
// The story holds: the first edit was refused by the guard, the last one ran.
if (!outputs[0]?.blocked_by_extension || outputs.at(-1) !== 'wrote src/app.ts')
  process.exitCode = 1;
