import type {
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { ChainOutcome } from '../../chain/outcome.js';
import type { Turn } from '../../runtime/turn.js';

/** The text block that holds a rewritten or withheld answer in place of the model's. */
const ANSWER_ID = 'hermes-final-answer';

/**
 * A generated step through `transform_final_answer` when it is the answer: a step without tool
 * calls is the last of the SDK's loop, and its text what the user reads (docs/hosts.md, The final
 * answer by host). Its text parts become one part with the answer to show; everything else stays.
 */
export async function gatedGenerate(
  turn: Turn,
  result: LanguageModelV3GenerateResult,
): Promise<LanguageModelV3GenerateResult> {
  if (result.content.some((part) => part.type === 'tool-call')) return result;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const shown = answerToShow(await turn.transformFinalAnswer(text));
  if (shown === undefined) return result;
  const content: LanguageModelV3Content[] = [];
  let placed = false;
  for (const part of result.content) {
    if (part.type !== 'text') content.push(part);
    else if (!placed) {
      content.push({ type: 'text', text: shown });
      placed = true;
    }
  }
  if (!placed) content.push({ type: 'text', text: shown });
  return { ...result, content };
}

/**
 * A streamed step through `transform_final_answer`. Whether a step is the answer is known only at
 * its end (a tool call may come after its text), so with a handler registered every part of the
 * step is held until `finish`: a step with a tool call then passes as it came; the answer's text
 * parts are replaced by one block with the answer to show. The user sees the answer at once
 * instead of as it is written: the price of a gate that must see all of it first.
 */
export function gatedStream(turn: Turn, result: LanguageModelV3StreamResult) {
  const held: LanguageModelV3StreamPart[] = [];
  let text = '';
  let calls = false;
  /** Releases what was held: as it came, or with the answer to show in place of its text. */
  const release = async (
    controller: TransformStreamDefaultController<LanguageModelV3StreamPart>,
  ) => {
    const shown = calls ? undefined : answerToShow(await turn.transformFinalAnswer(text));
    if (shown === undefined) for (const kept of held) controller.enqueue(kept);
    else {
      for (const kept of held) if (!isTextPart(kept)) controller.enqueue(kept);
      controller.enqueue({ type: 'text-start', id: ANSWER_ID });
      controller.enqueue({ type: 'text-delta', id: ANSWER_ID, delta: shown });
      controller.enqueue({ type: 'text-end', id: ANSWER_ID });
    }
    held.length = 0;
  };
  const stream = result.stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      async transform(part, controller) {
        if (part.type === 'stream-start') {
          controller.enqueue(part);
          return;
        }
        if (part.type === 'text-delta') text += part.delta;
        if (part.type === 'tool-call') calls = true;
        if (part.type !== 'finish') {
          held.push(part);
          return;
        }
        await release(controller);
        controller.enqueue(part);
      },
      async flush(controller) {
        // A stream that ends without `finish` (an error part came instead): its text is still
        // judged before anyone reads it.
        if (held.length > 0) await release(controller);
      },
    }),
  );
  return { ...result, stream } satisfies LanguageModelV3StreamResult;
}

/** The answer to show when the chain changed it or withheld it; undefined to keep the model's. */
function answerToShow(outcome: ChainOutcome<string>): string | undefined {
  if (outcome.blocked) return outcome.message;
  return outcome.changed ? outcome.value : undefined;
}

function isTextPart(part: LanguageModelV3StreamPart): boolean {
  return part.type === 'text-start' || part.type === 'text-delta' || part.type === 'text-end';
}
