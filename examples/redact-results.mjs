// Tool results through transform_tool_result: a redactor replaces secrets in whatever a tool
// returns before the model reads it, and a second extension keeps environment dumps away from the
// model altogether. The model here is scripted to run `cat .env.example` and `env`.
// Run it: node examples/redact-results.mjs
import { block, createRuntime, defineExtension, rewrite, runConversation } from 'hermes-extensions';
import { mapStrings } from 'hermes-extensions/policy';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';

/** API keys as the common providers spell them. */
const KEY = /\b(sk-[A-Za-z0-9-]{16,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36})\b/g;

const redactKeys = defineExtension({
  name: 'redact-keys',
  setup(hermes) {
    hermes.on('transform_tool_result', (event) => {
      // Every string of the result, whatever its shape: text, {stdout, stderr}, nested JSON.
      const redacted = mapStrings(event.result, (text) => text.replace(KEY, '[redacted key]'));
      return redacted === event.result ? undefined : rewrite(redacted);
    });
  },
});

const noEnvDumps = defineExtension({
  name: 'no-env-dumps',
  setup(hermes) {
    hermes.on(
      'transform_tool_result',
      (event) =>
        /^\s*(env|printenv)\s*$/.test(String(event.toolArgs.command))
          ? block('the environment is not shown to the model: ask for the variable you need')
          : undefined,
      { tools: ['bash'] },
    );
  },
});

const runtime = await createRuntime({ extensions: [redactKeys, noEnvDumps] });
const result = await runConversation({
  runtime,
  sessionId: 'redact',
  userMessage: 'which keys does this project use?',
  systemPrompt: 'You are a coding agent.',
  model: scriptedModel([
    {
      content: 'Looking.',
      toolCalls: [
        toolCall('bash', { command: 'cat .env.example' }),
        toolCall('bash', { command: 'env' }),
      ],
    },
    { content: 'It uses an OpenAI key.' },
  ]),
  tools: {
    bash: {
      execute: ({ command }) =>
        command === 'env'
          ? { stdout: 'HOME=/home/you\nOPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\n', exitCode: 0 }
          : { stdout: 'OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\n', exitCode: 0 },
    },
  },
});
for (const call of result.toolCalls) {
  console.log(`${call.arguments.command} -> ${call.result}`);
}
await runtime.close();
