// A whole agent turn with one extension, run by the reference loop against a scripted model.
// `npm run quickstart` runs it; it is the host example of the README, end to end.
import {
  block,
  createRuntime,
  defineExtension,
  injectSystem,
  rewrite,
  runConversation,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';

const planFirst = defineExtension({
  name: 'plan-first',
  description: 'No edits outside plans/ until a plan exists',
  setup(hermes) {
    hermes.on('transform_user_input', (event) =>
      /^(fix|implement|add)\b/i.test(event.userMessage)
        ? rewrite(`/start-feature ${event.userMessage}`)
        : undefined,
    );
    hermes.on('before_llm_call', () => injectSystem('Write the plan before any code.'));
    hermes.on(
      'intercept_tool_call',
      (event) => {
        const path = String(event.toolArgs.path ?? '');
        if (path.startsWith('plans/')) {
          event.state.planWritten = true;
          return undefined;
        }
        if (event.state.planWritten) return undefined;
        return block(`Write the plan at plans/active/plan.md before editing ${path}.`);
      },
      { tools: ['write', 'edit'] },
    );
  },
});

const runtime = await createRuntime({ extensions: [planFirst] });
const files = new Map();
const tools = {
  write: {
    description: 'Write a file',
    execute: ({ path, content }) => {
      files.set(path, content);
      return `wrote ${path}`;
    },
  },
};
const model = scriptedModel([
  {
    content: 'Editing right away.',
    toolCalls: [toolCall('write', { path: 'src/login.ts', content: 'fix' })],
  },
  {
    content: 'Planning first.',
    toolCalls: [toolCall('write', { path: 'plans/active/plan.md', content: '1. fix' })],
  },
  {
    content: 'Now the fix.',
    toolCalls: [toolCall('write', { path: 'src/login.ts', content: 'fix' })],
  },
  { content: 'Planned, then fixed the login bug.' },
]);

const result = await runConversation({
  runtime,
  sessionId: 'demo',
  userMessage: 'fix the login bug',
  systemPrompt: 'You are a coding agent.',
  model,
  tools,
});

console.log(
  `user message the model saw: ${JSON.stringify(model.requests[0].messages.at(-1).content)}`,
);
console.log(
  `system prompt of request 1 ends with: ${JSON.stringify(model.requests[0].systemPrompt.split('\n\n').at(-1))}`,
);
for (const call of result.toolCalls) {
  console.log(
    `${call.blocked ? 'BLOCKED' : 'ran    '} ${call.name} ${call.arguments.path}  -> ${call.result}`,
  );
}
console.log(`files written: ${[...files.keys()].join(', ')}`);
console.log(`final response: ${result.finalResponse}`);
// Done with the runtime: extensions flush what they buffered (an audit log, telemetry).
await runtime.close();
if (files.size !== 2 || !result.toolCalls[0].blocked) process.exitCode = 1;
