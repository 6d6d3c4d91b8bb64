import { SHELL_TOOL_NAMES } from '../shell/invocation.js';
import { normalizeToolName, READER_TOOL_NAMES, WRITER_TOOL_NAMES } from '../tool-names.js';

const SHELLS = new Set(SHELL_TOOL_NAMES.map(normalizeToolName));
const READERS = new Set(READER_TOOL_NAMES.map(normalizeToolName));

type GroundKind = 'shell' | 'reader' | 'other';

/**
 * Tool names already judged, as sent: every tool call asks (twice, before and after the chain),
 * and a host sends the same few names, so the name is not lowered and scanned each time.
 */
const judgedKinds = new Map<string, GroundKind>();
const MAX_JUDGED = 1024;
let lastTool: string | undefined;
let lastKind: GroundKind = 'other';

/**
 * How the protected-ground rule judges a tool, by its name: a shell tool by its command, a tool
 * known to only read not at all, any other by the paths it names. Apart from the judge, so a
 * host decides a reader's call without loading the shell parser.
 */
export function groundKindOf(tool: string): GroundKind {
  // A call asks before its chain and again after it: the second time, no lookup at all.
  if (tool === lastTool) return lastKind;
  let kind = judgedKinds.get(tool);
  if (kind === undefined) {
    const name = normalizeToolName(tool);
    kind = SHELLS.has(name) ? 'shell' : READERS.has(name) ? 'reader' : 'other';
    // Bounded: a host that makes up tool names per call must not grow it without end.
    if (judgedKinds.size < MAX_JUDGED) judgedKinds.set(tool, kind);
  }
  lastTool = tool;
  lastKind = kind;
  return kind;
}

/**
 * Every tool name the framework knows by its kind, shells first: for what a tool pattern is
 * shown by (`hermes extensions list`), without loading the shell parser.
 */
export const KNOWN_TOOL_NAMES: readonly string[] = [
  ...new Set([...SHELL_TOOL_NAMES, ...WRITER_TOOL_NAMES, ...READER_TOOL_NAMES]),
];
