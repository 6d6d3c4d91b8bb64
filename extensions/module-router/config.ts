import { SHELL_TOOL_NAMES } from 'hermes-extensions/policy';
import { z } from 'zod';

/** Tool names compared without regard to case or separators: `Grep_Search` is `grep-search`. */
export const toolNameKey = (name: string) => name.toLowerCase().replace(/[\s_.-]/g, '');

/**
 * The search and listing tools of the common agents, under their own names: Claude Code (`Grep`,
 * `Glob`, `LS`), Cursor (`grep_search`, `codebase_search`, `file_search`, `list_dir`,
 * `glob_file_search`), Windsurf (`find_by_name`), Gemini CLI (`search_file_content`, `glob`,
 * `list_directory`, `read_many_files`), Copilot (`semantic_search`, `file_search`), Cline and
 * Hermes (`search_files`, `list_files`, `list_code_definition_names`), Continue
 * (`file_glob_search`, `view_repo_map`), the reference MCP filesystem server (`directory_tree`,
 * `list_directory_with_sizes`, and `search_files`, `list_directory` as above).
 */
const EXPLORATION_TOOLS = [
  'grep',
  'find',
  'ls',
  'glob',
  'search',
  'search_files',
  'list_files',
  'list_directory',
  'list_dir',
  'grep_search',
  'codebase_search',
  'semantic_search',
  'file_search',
  'glob_file_search',
  'find_by_name',
  'search_file_content',
  'read_many_files',
  'list_code_definition_names',
  'file_glob_search',
  'view_repo_map',
  'directory_tree',
  'list_directory_with_sizes',
  'search_code',
  'code_search',
  'find_files',
];

export const moduleRouterConfig = z.object({
  /** The routing artifact that says which module holds what (relative to the project root). */
  routing_file: z.string().min(1).default('docs/MODULES.md'),
  /** Tools that search or list: refused across modules until the routing file was read. */
  exploration_tools: z.array(z.string()).default(EXPLORATION_TOOLS),
  /**
   * Tools that read a file: a read of the routing file with one of them counts once it ran. The
   * reference MCP filesystem server's (`read_text_file`, `read_multiple_files`) among them.
   */
  read_tools: z
    .array(z.string())
    .default(['read', 'read_file', 'view', 'cat', 'open', 'read_text_file', 'read_multiple_files']),
  shell_tools: z.array(z.string()).default([...SHELL_TOOL_NAMES]),
});

export type ModuleRouterConfig = z.output<typeof moduleRouterConfig>;
