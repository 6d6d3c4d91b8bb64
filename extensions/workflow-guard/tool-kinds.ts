import { normalizeToolName } from 'hermes-extensions/policy';
import { READ_ONLY_TOOLS, type WorkflowGuardConfig } from './config.js';

/** How the guard judges a tool: by the files it writes, by its command, as a reader, or not at all. */
export type ToolKind = 'writer' | 'shell' | 'reader' | 'unknown';

export { normalizeToolName };

/** The kind of each tool name, by the config's lists (`blocked_tools`, `shell_tools`, readers). */
export function toolKinds(config: WorkflowGuardConfig): (tool: string) => ToolKind {
  const writers = new Set(config.blocked_tools.map(normalizeToolName));
  const shells = new Set(config.shell_tools.map(normalizeToolName));
  const readers = new Set([...READ_ONLY_TOOLS, ...config.read_only_tools].map(normalizeToolName));
  return (tool) => {
    const name = normalizeToolName(tool);
    if (writers.has(name)) return 'writer';
    if (shells.has(name)) return 'shell';
    if (readers.has(name)) return 'reader';
    return 'unknown';
  };
}

/**
 * A pattern that matches every name `toolKinds` takes for one of `names` (case and separators
 * aside), for a handler's `tools` option: a handler that does not match is never called.
 */
export function toolNamePattern(names: readonly string[]): RegExp {
  const separators = '[\\s_.-]*';
  const spelled = names.map((name) =>
    [...normalizeToolName(name)]
      .map((char) => char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(separators),
  );
  return new RegExp(`^${separators}(?:${spelled.join('|')})${separators}$`, 'i');
}
