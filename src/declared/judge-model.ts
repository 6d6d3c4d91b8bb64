import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { shown } from './answer.js';
import { postJson, type Remote } from './remote.js';

/** Asks the judge's model one question: the system message and the user's, answered as text. */
export type AskModel = (system: string, question: string) => Promise<string>;

/** `endpoint:` an OpenAI-compatible API's `/chat/completions`, asked at temperature 0. */
export function chatCompletionsModel(remote: Remote, model: string, who: string): AskModel {
  return async (system, question) => {
    const answer = await postJson(
      remote,
      {
        model,
        temperature: 0,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: question },
        ],
      },
      who,
    );
    const content = (answer as { choices?: Array<{ message?: { content?: unknown } }> })
      ?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') {
      throw new Error(`${who}: the API answered ${shown(answer)}, not a chat completion`);
    }
    return content;
  };
}

export interface ProviderModelOptions {
  /** The provider package (`@ai-sdk/anthropic`). */
  provider: string;
  /** Its export to use; by default its one provider, or with `options` its one factory. */
  export?: string;
  /** Handed to the factory (`createOpenAICompatible({ name, baseURL })`). */
  options?: Record<string, unknown>;
  model: string;
  timeoutMs: number;
  retries: number;
}

/**
 * `provider:` an AI SDK provider package and the AI SDK's `generateText`, both found beside
 * hermes-extensions, never in the project (as the optional peers are: src/optional-peers.ts): a
 * project must not choose the code that receives the user's API key. Loaded when the runtime is
 * built, so that a package missing or without a provider is a load error naming it.
 */
export function providerModel(spec: ProviderModelOptions, who: string): AskModel {
  const load = createRequire(join(PACKAGE_ROOT, 'package.json'));
  const ai = required(load, 'ai', 'the AI SDK (`ai`), which a provider runs in') as {
    generateText?: unknown;
  };
  if (typeof ai.generateText !== 'function') {
    throw new Error('the installed `ai` package has no generateText: install ai 6 or 7');
  }
  const generateText = ai.generateText as (options: object) => Promise<{ text: string }>;
  const languageModel = providerOf(
    required(load, spec.provider, `the provider package ${spec.provider}`) as Record<
      string,
      unknown
    >,
    spec,
  ).languageModel(spec.model);
  return async (system, question) => {
    const timeout = AbortSignal.timeout(spec.timeoutMs);
    try {
      const { text } = await generateText({
        model: languageModel,
        system,
        prompt: question,
        temperature: 0,
        maxRetries: spec.retries,
        abortSignal: timeout,
      });
      return text;
    } catch (error) {
      if (timeout.aborted) throw new Error(`${who}: no answer within ${spec.timeoutMs} ms`);
      throw new Error(`${who}: ${(error as Error).message}`);
    }
  };
}

interface Provider {
  languageModel(modelId: string): unknown;
}

const isProvider = (value: unknown): value is Provider =>
  (typeof value === 'function' || (typeof value === 'object' && value !== null)) &&
  typeof (value as Partial<Provider>).languageModel === 'function';

/**
 * The provider a package's exports make: the export named, else its one provider (`anthropic`),
 * or, with options, its one factory (`createOpenAICompatible`) called with them. Guessing between
 * two is refused: the message lists them, for `provider_export`.
 */
function providerOf(exports: Record<string, unknown>, spec: ProviderModelOptions): Provider {
  const named = spec.export;
  let chosen: unknown;
  if (named !== undefined) {
    if (!Object.hasOwn(exports, named)) {
      throw new Error(
        `${spec.provider} exports no ${named}; it exports ${Object.keys(exports).join(', ')}`,
      );
    }
    chosen = exports[named];
  } else {
    const candidates = Object.entries(exports).filter(([name, value]) =>
      spec.options === undefined
        ? isProvider(value)
        : name.startsWith('create') && typeof value === 'function',
    );
    if (candidates.length !== 1) {
      const what = spec.options === undefined ? 'provider' : 'factory (create…)';
      throw new Error(
        `${spec.provider} exports ${candidates.length === 0 ? 'no' : 'more than one'} ${what}${candidates.length > 1 ? `: ${candidates.map(([name]) => name).join(', ')}` : ''}; name the one to use with provider_export`,
      );
    }
    chosen = candidates[0]?.[1];
  }
  const provider =
    isProvider(chosen) && spec.options === undefined
      ? chosen
      : typeof chosen === 'function'
        ? (chosen as (options: object) => unknown)(spec.options ?? {})
        : undefined;
  if (!isProvider(provider)) {
    throw new Error(
      `${spec.provider}${named === undefined ? '' : `.${named}`} is not an AI SDK provider (nothing with a languageModel method)`,
    );
  }
  return provider;
}

function required(load: NodeJS.Require, name: string, what: string): unknown {
  try {
    return load(name);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'MODULE_NOT_FOUND' && message.includes(`'${name}'`)) {
      throw new Error(
        `${what} is not installed beside hermes-extensions (${PACKAGE_ROOT}); install it there (\`npm i ${name}\`, or \`npm i -g ${name}\` beside a global install)`,
      );
    }
    throw new Error(`${what} did not load: ${(error as Error).message}`);
  }
}
