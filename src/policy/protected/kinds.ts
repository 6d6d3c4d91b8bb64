import { SHELL_TOOL_NAMES } from '../shell/invocation.js';
import { normalizeToolName, READER_TOOL_NAMES, WRITER_TOOL_NAMES } from '../tool-names.js';

const SHELLS = new Set(SHELL_TOOL_NAMES.map(normalizeToolName));
const READERS = new Set(READER_TOOL_NAMES.map(normalizeToolName));

/**
 * How the protected-ground rule judges a tool, by its name: a shell tool by its command, a tool
 * known to only read not at all, any other by the paths it names. Apart from the judge, so a
 * host decides a reader's call without loading the shell parser.
 */
export function groundKindOf(tool: string): 'shell' | 'reader' | 'other' {
  const name = normalizeToolName(tool);
  if (SHELLS.has(name)) return 'shell';
  return READERS.has(name) ? 'reader' : 'other';
}

/**
 * Every tool name the framework knows by its kind, shells first: for what a tool pattern is
 * shown by (`hermes extensions list`), without loading the shell parser.
 */
export const KNOWN_TOOL_NAMES: readonly string[] = [
  ...new Set([...SHELL_TOOL_NAMES, ...WRITER_TOOL_NAMES, ...READER_TOOL_NAMES]),
];
