/**
 * Claude Code's tool and argument names, mapped to the ones extensions see by default, so a
 * policy such as workflow-guard works there with its default config.
 */
const TOOLS: Readonly<Record<string, string>> = {
  Write: 'write',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'bash',
  Read: 'read',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'ls',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  Task: 'task',
  TodoWrite: 'todo_write',
};

/** Argument names Claude Code uses for the file a tool works on. */
const PATH_ARGUMENTS = ['file_path', 'notebook_path'];

export function toolFromClaude(name: string): string {
  return TOOLS[name] ?? name;
}

export function argsFromClaude(input: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    args[PATH_ARGUMENTS.includes(key) && !('path' in input) ? 'path' : key] = value;
  }
  return args;
}

/** A rewrite's args, back in the names the Claude Code tool takes. */
export function argsToClaude(
  original: Record<string, unknown>,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const pathKey = PATH_ARGUMENTS.find((key) => key in original);
  if (pathKey === undefined || 'path' in original) return args;
  const { path, ...rest } = args;
  return path === undefined ? rest : { ...rest, [pathKey]: path };
}
