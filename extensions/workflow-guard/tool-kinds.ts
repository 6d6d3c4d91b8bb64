import { READ_ONLY_TOOLS, type WorkflowGuardConfig } from './config.js';

/** How the guard judges a tool: by the files it writes, by its command, as a reader, or not at all. */
export type ToolKind = 'writer' | 'shell' | 'reader' | 'unknown';

/** Tool names compared without regard to case or separators: `Write_File` is `write-file`. */
export const normalizeToolName = (name: string) => name.toLowerCase().replace(/[\s_.-]/g, '');

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
