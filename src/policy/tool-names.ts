/**
 * Tool names the framework and its guards know by what they do, compared without case or
 * separators (`normalizeToolName`). A tool named in none of these lists is judged by the paths
 * its arguments name.
 */

/** Tools that write the files they name: judged by every path they would write. */
export const WRITER_TOOL_NAMES: readonly string[] = [
  'write',
  'edit',
  'patch',
  'write_file',
  'create_file',
  'edit_file',
  'apply_patch',
  'apply_diff',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'multi_edit',
  'notebook_edit',
  'replace',
  'insert',
  'delete_file',
  'move_file',
  'rename_file',
  'copy_file',
  'create_directory',
];

/**
 * Tools that only read or talk. Among them the reference MCP filesystem server's readers
 * (@modelcontextprotocol/server-filesystem: `read_text_file`, `read_multiple_files`,
 * `directory_tree`, …), whose calls reach the guards through `hermes mcp proxy` (docs/mcp.md);
 * its writers (`write_file`, `edit_file`, `create_directory`, `move_file`) are writers above.
 */
export const READER_TOOL_NAMES: readonly string[] = [
  'read',
  'read_file',
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  'list_directory_with_sizes',
  'directory_tree',
  'get_file_info',
  'list_allowed_directories',
  'read_many_files',
  'view',
  'view_file',
  'view_image',
  'grep',
  'grep_search',
  'glob',
  'ls',
  'list',
  'list_files',
  'list_dir',
  'list_directory',
  'find',
  'find_files',
  'file_search',
  'search',
  'search_files',
  'codebase_search',
  'web_fetch',
  'web_search',
  'google_web_search',
  'todo_read',
  'todo_write',
  'update_plan',
  'exit_plan_mode',
  'ask_user_question',
  'bash_output',
  'notebook_read',
];

/** Tool names compared without regard to case or separators: `Write_File` is `write-file`. */
export const normalizeToolName = (name: string) => name.toLowerCase().replace(/[\s_.-]/g, '');
