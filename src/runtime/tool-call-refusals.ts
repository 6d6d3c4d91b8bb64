import { type ChainOutcome, EMPTY_METADATA, FRAMEWORK_NAME } from '../chain/outcome.js';
import type { ToolRestriction } from '../hooks/before-llm-call.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';

/** The tool calls the framework refuses itself, before any handler runs (turn.ts). */

/** The tools one model request offered, and who took the others away. */
export interface OfferedTools {
  readonly names: ReadonlySet<string>;
  readonly restrictions: readonly ToolRestriction[];
}

export const NO_RESTRICTIONS: readonly ToolRestriction[] = Object.freeze([]);
/** Offered tools named in a refusal, at most: a model needs a hint, not a catalogue. */
const NAMES_SHOWN = 20;

/** A call the framework refuses itself, before any handler, with why. */
export function frameworkRefusal(
  call: ToolCallInput,
  message: string,
): ChainOutcome<Record<string, unknown>> {
  return {
    blocked: true,
    message,
    blockedBy: FRAMEWORK_NAME,
    changed: false,
    value: call.toolArgs,
    metadata: EMPTY_METADATA,
    trace: [],
  };
}

/**
 * The refusal of a call to a tool the request did not offer, decided before any handler: a model
 * that names a hidden tool (or one it made up) gets a clear error. `blockedBy` is the extension
 * that hid the tool, or `hermes` when the host never offered it.
 */
export function notOffered(
  call: ToolCallInput,
  offered: OfferedTools,
): ChainOutcome<Record<string, unknown>> {
  const hider = offered.restrictions.find((r) => r.hidden.includes(call.toolName));
  const names = [...offered.names];
  const shown =
    names.length === 0
      ? 'none'
      : names.length > NAMES_SHOWN
        ? `${names.slice(0, NAMES_SHOWN).join(', ')}, …`
        : names.join(', ');
  const why =
    hider === undefined
      ? 'it was not offered in this request'
      : `extension "${hider.extension}" took it away for this request${hider.reason === undefined ? '' : ` (${hider.reason})`}`;
  return {
    blocked: true,
    message: `Tool "${call.toolName}" cannot be called: ${why}. Tools offered: ${shown}.`,
    blockedBy: hider?.extension ?? FRAMEWORK_NAME,
    changed: false,
    value: call.toolArgs,
    metadata: EMPTY_METADATA,
    trace: [],
  };
}
