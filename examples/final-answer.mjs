// transform_final_answer: a "no unverified claims" gate. An answer that says the tests pass is
// withheld unless the turn ran them; the tool-call chain records in the turn's state what ran, and
// the gate reads it. The model here is scripted: in the first turn it claims without testing, in
// the second it runs `npm test` first.
// Run it: node examples/final-answer.mjs
import { block, createRuntime, defineExtension, runConversation } from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';

const verifiedClaims = defineExtension({
  name: 'verified-claims',
  setup(hermes) {
    const ran = hermes.turnState(() => ({ tests: false }));
    hermes.on('intercept_tool_call', (event) => {
      if (/\bnpm test\b/.test(String(event.toolArgs.command))) ran(event).tests = true;
    });
    hermes.on('transform_final_answer', (event) =>
      /tests pass/i.test(event.answer) && !ran(event).tests
        ? block('The answer says the tests pass, but no test ran in this turn.')
        : undefined,
    );
  },
});

const runtime = await createRuntime({ extensions: [verifiedClaims] });
const tools = { bash: { execute: ({ command }) => `ran ${command}: 12 passed` } };
const turns = [
  [{ content: 'Fixed the bug; the tests pass.' }],
  [
    { content: 'Testing.', toolCalls: [toolCall('bash', { command: 'npm test' })] },
    { content: 'Fixed the bug; the tests pass.' },
  ],
];
for (const [index, script] of turns.entries()) {
  const result = await runConversation({
    runtime,
    sessionId: 'claims',
    userMessage: 'fix the bug',
    systemPrompt: 'You are a coding agent.',
    model: scriptedModel(script),
    tools,
  });
  console.log(
    `turn ${index + 1}: ${result.blocked ? 'withheld' : 'shown'} -> ${result.finalResponse}`,
  );
}
await runtime.close();
