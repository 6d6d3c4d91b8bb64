// A model loop of your own, with the three hooks where they belong: transform_user_input once per
// turn, before_llm_call before every model request, intercept_tool_call before every tool call
// (a block: the tool does not run; an ask: a person decides; a rewrite: it runs rewritten).
// The model is scripted and the person always says no, so it runs anywhere.
// Run it: node examples/own-loop.mjs
import {
  ask,
  blockedToolResult,
  createRuntime,
  defineExtension,
  injectSystem,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';

const careful = defineExtension({
  name: 'careful',
  setup(hermes) {
    hermes.on('before_llm_call', () => injectSystem('Explain each change.'));
    hermes.on('intercept_tool_call', (event) => ask(`delete ${event.toolArgs.path}?`), {
      tools: 'delete',
    });
  },
});
const runtime = await createRuntime({ extensions: [careful] });
const tools = [
  { name: 'read', description: 'Read a file' },
  { name: 'delete', description: 'Delete a file' },
];
const runTool = (name, args) =>
  name === 'read' ? `contents of ${args.path}` : `deleted ${args.path}`;
const model = scriptedModel([
  {
    content: 'Reading, then cleaning up.',
    toolCalls: [toolCall('read', { path: 'notes.md' }), toolCall('delete', { path: 'notes.md' })],
  },
  { content: 'Read notes.md; it stays, as you declined to delete it.' },
]);
const askUser = async (message) => {
  console.log(`asked the user: ${message} -> no`);
  return false;
};

const systemPrompt = 'You are a coding agent.';
const history = [];
const answer = await runtime.runTurn({ sessionId: 'own-loop', platform: 'cli' }, async (turn) => {
  const input = await turn.transformUserInput('tidy up the notes');
  if (input.blocked) return input.message;
  history.push({ role: 'user', content: input.value });

  for (let iteration = 0; ; iteration++) {
    const request = await turn.beforeLlmCall({
      systemPrompt,
      messages: history,
      iteration,
      tools: tools.map((tool) => tool.name), // the tools this request offers
    });
    if (request.blocked) return request.message;
    // request.value holds this request's prompt and messages, and the tools left to offer;
    // history itself is never changed.
    const offered = tools.filter((tool) => request.value.tools?.includes(tool.name) ?? true);
    const reply = await model.complete({ ...request.value, tools: offered });
    if (!reply.toolCalls?.length) {
      // The answer passes transform_final_answer before the user reads it.
      const shown = await turn.transformFinalAnswer(reply.content);
      return shown.blocked ? shown.message : shown.value;
    }
    // The assistant's message with its tool calls goes first: each tool result answers one of them.
    history.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    for (const call of reply.toolCalls) {
      const outcome = await turn.interceptToolCall({
        toolName: call.name,
        toolArgs: call.arguments,
        toolCallId: call.id,
      });
      let result;
      if (outcome.blocked)
        result = blockedToolResult(outcome); // the tool does not run
      else if (outcome.ask && !(await askUser(outcome.ask.message)))
        result = JSON.stringify({ error: `declined by the user: ${outcome.ask.message}` });
      else {
        const ran = runTool(call.name, outcome.value); // possibly rewritten args
        // What the tool returned passes transform_tool_result before the model reads it.
        const shown = await turn.transformToolResult({
          toolName: call.name,
          toolArgs: outcome.value,
          result: ran,
          toolCallId: call.id,
        });
        result = shown.blocked ? blockedToolResult(shown) : shown.value;
      }
      console.log(`${call.name} ${call.arguments.path} -> ${result}`);
      history.push({ role: 'tool', content: result, toolCallId: call.id, name: call.name });
    }
  }
});
console.log(
  `system prompt of the first request: ${JSON.stringify(model.requests[0].systemPrompt)}`,
);
console.log(`answer: ${answer}`);
await runtime.close();
if (!history.some((m) => m.role === 'tool' && m.content.startsWith('{"error":"declined')))
  process.exitCode = 1;
