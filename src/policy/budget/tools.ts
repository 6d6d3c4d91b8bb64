/** Which tool calls a tool-call budget counts: the forms the `tools` handler option takes, or a predicate. */
export type CountedTools =
  | string
  | RegExp
  | ReadonlyArray<string | RegExp>
  | ((toolName: string) => boolean);

export interface ToolFilter {
  readonly counts: (toolName: string) => boolean;
  /** How a message names the counted tools. */
  readonly shown: string;
}

/** Compiles `tools` once, when the budget is made; a mistake is thrown then, naming the option. */
export function toolFilter(maker: string, tools: CountedTools | undefined): ToolFilter {
  if (tools === undefined) return { counts: () => true, shown: 'any tool' };
  if (typeof tools === 'function') return { counts: tools, shown: 'these tools' };
  const parts: unknown[] = Array.isArray(tools) ? tools : [tools];
  if (parts.length === 0) {
    throw new TypeError(
      `${maker}({ tools }): tools must name at least one tool (leave it out to count every tool)`,
    );
  }
  const names = new Set<string>();
  const patterns: RegExp[] = [];
  for (const part of parts) {
    if (typeof part === 'string') names.add(part);
    // A `g` or `y` flag would make `test` remember its last position and alternate answers.
    else if (part instanceof RegExp)
      patterns.push(new RegExp(part.source, part.flags.replace(/[gy]/g, '')));
    else {
      throw new TypeError(
        `${maker}({ tools }): tools must be tool names, RegExps, a list of them, or a function of the tool's name; got an entry of type ${typeof part}`,
      );
    }
  }
  return {
    counts: (toolName) => names.has(toolName) || patterns.some((re) => re.test(toolName)),
    shown: parts.map(String).join(', '),
  };
}
