import { SHELL_TOOL_NAMES } from 'hermes-extensions/policy';
import { z } from 'zod';

export const moduleRouterConfig = z.object({
  /** The routing artifact that says which module holds what (relative to the project root). */
  routing_file: z.string().min(1).default('docs/MODULES.md'),
  /** Tools that search or list: blocked over the whole tree until the routing file was read. */
  exploration_tools: z
    .array(z.string())
    .default([
      'grep',
      'find',
      'ls',
      'glob',
      'search',
      'search_files',
      'list_files',
      'list_directory',
    ]),
  /** Tools that read a file: reading the routing file with one of them counts. */
  read_tools: z.array(z.string()).default(['read', 'read_file', 'view', 'cat', 'open']),
  shell_tools: z.array(z.string()).default([...SHELL_TOOL_NAMES]),
});

export type ModuleRouterConfig = z.output<typeof moduleRouterConfig>;
