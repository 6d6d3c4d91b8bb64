// A deadline for a whole chain: three guards that each take 500 ms stay well under their own
// timeoutMs (5000), but together they would hold every tool call for 1.5 s. With
// chainTimeoutMs the chain gets 800 ms: past it a tool call is refused (intercept_tool_call fails
// closed) and a model request goes out with what the handlers that finished decided
// (before_llm_call fails open); either way the message names who ran and who did not.
// Run it: node examples/chain-deadline.mjs
import { createRuntime, defineExtension, injectSystem } from 'hermes-extensions';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A guard that looks something up for 500 ms and then lets the call through. */
const slowGuard = (name, priority) =>
  defineExtension({
    name,
    setup(hermes) {
      hermes.on('intercept_tool_call', async () => sleep(500), { priority });
      hermes.on('before_llm_call', async () => sleep(500), { priority });
    },
  });

const style = defineExtension({
  name: 'concise-style',
  setup(hermes) {
    hermes.on('before_llm_call', () => injectSystem('Answer briefly.'), {
      priority: 1,
    });
  },
});

const runtime = await createRuntime({
  extensions: [
    style,
    slowGuard('lint-check', 10),
    slowGuard('license-check', 20),
    slowGuard('secrets-scan', 30),
  ],
  // In a config file: extensions: { chain_timeout_ms: { intercept_tool_call: 800, ... } }
  chainTimeoutMs: { intercept_tool_call: 800, before_llm_call: 800 },
  logger: { debug() {}, info() {}, warn() {}, error() {} },
});

await runtime.runTurn({ sessionId: 'deadline' }, async (turn) => {
  const call = await turn.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } });
  console.log(`bash ls -> ${call.blocked ? `refused: ${call.message}` : 'runs'}`);

  const request = await turn.beforeLlmCall({
    systemPrompt: 'You are a coding agent.',
    messages: [{ role: 'user', content: 'what is in this folder?' }],
  });
  console.log(
    `model request -> sent with system prompt ${JSON.stringify(request.value.systemPrompt)}`,
  );
  console.log(`  and in its trace: ${request.trace.at(-1).error}`);
});
await runtime.close();
