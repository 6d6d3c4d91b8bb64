import type { ToolCall } from '../hooks/messages.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../host/types.js';

/** One scripted answer: fixed, or computed from the request the model received. */
export type ScriptStep =
  | ModelResponse
  | ((request: ModelRequest, index: number) => ModelResponse | Promise<ModelResponse>);

export interface ScriptedModel extends ModelClient {
  /** Every request received, copied when it arrived, in order. */
  readonly requests: readonly ModelRequest[];
  /** Steps not yet used. */
  readonly remaining: number;
}

/**
 * A model that answers with the given steps in order, for tests and demos. It fails loudly when
 * asked once more than scripted, so a loop that calls the model too often cannot pass unseen.
 */
export function scriptedModel(
  steps: readonly ScriptStep[],
  options: { name?: string } = {},
): ScriptedModel {
  const requests: ModelRequest[] = [];
  let next = 0;
  return {
    name: options.name ?? 'scripted-model',
    requests,
    get remaining() {
      return steps.length - next;
    },
    async complete(request) {
      const index = next;
      requests.push(structuredClone(request));
      const step = steps[index];
      if (step === undefined) {
        throw new Error(
          `scripted model: request #${index + 1} arrived but only ${steps.length} step(s) were scripted`,
        );
      }
      next++;
      return typeof step === 'function' ? step(request, index) : step;
    },
  };
}

/** The same, under the name other hook libraries' test kits use. */
export const createScriptedModel = scriptedModel;

let callCounter = 0;

/** A tool call for a script: `toolCall('write', { path: 'a.ts' })`. */
export function toolCall(name: string, args: Record<string, unknown> = {}, id?: string): ToolCall {
  callCounter++;
  return { id: id ?? `call_${callCounter}`, name, arguments: args };
}
