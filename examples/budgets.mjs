// Budgets per turn: at most two shell calls, and at most four model requests. The model here is
// scripted to keep running `ls`; the third call is refused with a message it can act on, and the
// fifth model request ends the turn. Counts live in the turn's state, so the next turn starts over.
// Run it: node examples/budgets.mjs
import { createRuntime, defineExtension, runConversation } from 'hermes-extensions';
import { modelCallBudget, toolCallBudget } from 'hermes-extensions/policy';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';

const limits = defineExtension({
  name: 'limits',
  setup(hermes) {
    hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, tools: ['bash'] }), {
      // Last of the validators: only calls the other guards let through are counted.
      phase: 'validate',
      priority: 10_000,
    });
    hermes.on('before_llm_call', modelCallBudget(hermes, { max: 4 }));
  },
});

const runtime = await createRuntime({ extensions: [limits] });
const lsAgain = { content: 'Listing again.', toolCalls: [toolCall('bash', { command: 'ls' })] };
const result = await runConversation({
  runtime,
  sessionId: 'budgets',
  userMessage: 'what is in this folder?',
  systemPrompt: 'You are a coding agent.',
  model: scriptedModel([lsAgain, lsAgain, lsAgain, lsAgain, lsAgain]),
  tools: { bash: { execute: ({ command }) => `ran ${command}: README.md src/` } },
});
for (const call of result.toolCalls) {
  console.log(`${call.name} ${call.arguments.command} -> ${call.result}`);
}
console.log(`turn ended: ${result.finalResponse}`);
await runtime.close();
