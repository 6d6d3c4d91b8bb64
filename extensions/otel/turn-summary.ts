import { extractToolPaths, SHELL_TOOL_NAMES, shellCommandOf } from 'hermes-extensions/policy';

type Attributes = Record<string, string | number | boolean>;

/** Bounds of the summary's lists: one attribute each, on one span per turn. */
const MAX_TOOLS_CHARS = 500;
const MAX_LIST_CHARS = 2000;
const URL_KEYS = ['url', 'uri', 'href'];

/** What a tool call acts on, as its span's `hermes.tool.target`: the files or URL it names. */
export function toolTarget(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const record = args as Record<string, unknown>;
  const urls = URL_KEYS.flatMap((key) => (typeof record[key] === 'string' ? [record[key]] : []));
  const targets = [...extractToolPaths(args), ...urls];
  return targets.length > 0 ? targets.join('|') : undefined;
}

/** The shell line a tool call runs, as its span's `hermes.tool.command`. */
export function toolCommand(toolName: string, args: unknown): string | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const record = args as Record<string, unknown>;
  if (SHELL_TOOL_NAMES.includes(toolName)) return shellCommandOf(record);
  return typeof record.command === 'string' ? record.command : undefined;
}

/**
 * `hermes.turn.final_status` from `on_session_end`: `completed`, `interrupted` (cancelled) or
 * `incomplete` (failed).
 */
export function finalStatus(completed: unknown, interrupted: unknown): string {
  if (interrupted === true) return 'interrupted';
  return completed === true ? 'completed' : 'incomplete';
}

/** What one turn did, for the attributes its root span gets when it ends. */
export class TurnSummary {
  readonly #tools = new Set<string>();
  readonly #targets = new Set<string>();
  readonly #commands = new Set<string>();
  readonly #outcomes = new Set<string>();
  apiCalls = 0;
  /** The last API failure's `error.type`: stamped on the root span. */
  errorType: string | undefined;

  tool(name: string, target: string | undefined, command: string | undefined): void {
    this.#tools.add(name);
    if (target !== undefined) for (const each of target.split('|')) this.#targets.add(each);
    if (command !== undefined) this.#commands.add(command);
  }

  outcome(status: string): void {
    this.#outcomes.add(status);
  }

  /** The turn summary; empty and zero counts are left out. */
  attributes(status: string): Attributes {
    const attributes: Attributes = { 'hermes.turn.final_status': status };
    if (this.#tools.size > 0) {
      attributes['hermes.turn.tool_count'] = this.#tools.size;
      attributes['hermes.turn.tools'] = clip([...this.#tools].sort().join(','), MAX_TOOLS_CHARS);
    }
    if (this.#targets.size > 0)
      attributes['hermes.turn.tool_targets'] = clip([...this.#targets].join('|'), MAX_LIST_CHARS);
    if (this.#commands.size > 0)
      attributes['hermes.turn.tool_commands'] = clip([...this.#commands].join('|'), MAX_LIST_CHARS);
    if (this.#outcomes.size > 0)
      attributes['hermes.turn.tool_outcomes'] = [...this.#outcomes].sort().join(',');
    if (this.apiCalls > 0) attributes['hermes.turn.api_call_count'] = this.apiCalls;
    if (this.errorType !== undefined) attributes['error.type'] = this.errorType;
    return attributes;
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
