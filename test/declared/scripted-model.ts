import type { ServerResponse } from 'node:http';
import { closeLoopbackServers, sendJson, serveOnLoopback } from '../e2e/loopback.js';

export interface Asked {
  model: string;
  messages: Array<{ role: string; content: string }>;
  authorization: string | undefined;
}

const pending: ServerResponse[] = [];

/**
 * An OpenAI-compatible chat completions API on loopback whose model says what `reply` returns
 * for the user message ('hang': never answers). `endpoint` is its base URL (`…/v1`); `asked` what
 * it was sent.
 */
export async function scriptedModel(reply: (question: string) => string | 'hang') {
  const asked: Asked[] = [];
  const port = await serveOnLoopback((request, body, response) => {
    const { model, messages } = JSON.parse(body) as Omit<Asked, 'authorization'>;
    asked.push({ model, messages, authorization: request.headers.authorization });
    const content = reply(messages.at(-1)?.content ?? '');
    if (content === 'hang') {
      pending.push(response);
      return;
    }
    sendJson(response, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });
  return { endpoint: `http://127.0.0.1:${port}/v1`, asked };
}

/** Ends the answers left hanging and closes every scripted model. */
export async function closeScriptedModels(): Promise<void> {
  for (const response of pending.splice(0)) response.destroy();
  await closeLoopbackServers();
}

/** The judge of the tests: SSH keys sent with curl are not ok, anything else is. */
export const exfiltration = (question: string) =>
  question.includes('curl') && question.includes('.ssh')
    ? '{"ok": false, "reason": "this sends your SSH keys to another machine"}'
    : '```json\n{"ok": true}\n```';
