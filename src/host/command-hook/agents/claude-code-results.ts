import type { ResultReplacement } from '../agent.js';

type Data = Record<string, unknown>;

/**
 * Claude Code reads no more of a hook's stdout than 1 MiB, and with less it gives the model the
 * tool's own output: a rewrite whose answer is longer is refused instead (with room for the
 * envelope around it).
 */
const MAX_ANSWER_CHARS = 1_000_000;

/**
 * transform_tool_result's answer at Claude Code's `PostToolUse` (docs/command-hooks.md, Tool
 * results). Claude Code takes `updatedToolOutput` in place of a tool's output, but for its own
 * tools only when it fits the tool's output shape: otherwise it logs an error and gives the model
 * the tool's own output, which for a redaction is the secret. So a rewrite goes as given only when
 * it has the result's shape (what `mapStrings` keeps unless a key itself holds what it maps: the
 * same keys, the same kinds of values, and `type` tags unchanged); any other rewrite, and a block,
 * go as a refusal built in the result's shape. MCP tools' results are not checked against a shape by Claude Code: they take any value.
 */
export function claudeToolResult(
  toolName: string,
  response: unknown,
  replacement: ResultReplacement,
): Data {
  if ('rewritten' in replacement) {
    const fits = toolName.startsWith('mcp__') || sameShape(response, replacement.rewritten);
    if (!fits) {
      return refused(
        toolName,
        response,
        `the result was refused: ${replacement.by} rewrote it into a form ${toolName}'s results cannot take in Claude Code (it would show the tool's own output instead); redact it with mapStrings, which keeps its form`,
      );
    }
    const answer = updated(replacement.rewritten);
    if (JSON.stringify(answer).length <= MAX_ANSWER_CHARS) return answer;
    return refused(
      toolName,
      response,
      `the result was refused: ${replacement.by} rewrote it into more than Claude Code takes from a hook (${MAX_ANSWER_CHARS} characters), and it would show the tool's own output instead`,
    );
  }
  return refused(toolName, response, undefined, replacement.refusal);
}

function updated(output: unknown): Data {
  return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: output } };
}

/**
 * A refusal in `response`'s shape. `why` is Hermes' own reason (a refusal of the JSON form the
 * other hosts give, `{"error", "blocked_by_extension": false}`); `text` an extension's. For a tool
 * whose refusal's shape is not known to be taken (only Bash, Read's text and MCP tools are), the
 * turn is stopped too (`continue: false`): should Claude Code not take it, the model is not asked
 * again with the result in front of it.
 */
function refused(toolName: string, response: unknown, why?: string, text?: string): Data {
  const refusal = text ?? JSON.stringify({ error: `Hermes: ${why}`, blocked_by_extension: false });
  const fitted = fittedRefusal(toolName, response, refusal);
  if (fitted !== undefined) return updated(fitted);
  return {
    ...updated(blankedWith(response, refusal)),
    continue: false,
    stopReason: `Hermes stopped the turn: the ${toolName} result was refused, and Claude Code may not take a refusal in its place. ${refusal}`,
  };
}

/** The refusal in the shapes the end-to-end test shows Claude Code taking. */
function fittedRefusal(toolName: string, response: unknown, refusal: string): unknown {
  if (toolName.startsWith('mcp__')) {
    return Array.isArray(response) ? [{ type: 'text', text: refusal }] : refusal;
  }
  if (!isData(response)) return undefined;
  if (toolName === 'Bash' && typeof response.stdout === 'string') {
    return {
      ...(blankedWith(response, '') as Data),
      stdout: refusal,
      stderr: '',
      interrupted: false,
      ...('isImage' in response ? { isImage: false } : {}),
    };
  }
  if (toolName === 'Read' && response.type === 'text' && isData(response.file)) {
    const file = response.file;
    return {
      ...response,
      file: { ...file, content: refusal, numLines: 1, startLine: 1, totalLines: 1 },
    };
  }
  return undefined;
}

/**
 * Every string of `response` emptied (but `type` tags, which say which shape it is), the first
 * text-like field holding `refusal`: the best guess at a refusal for a tool of unknown shape.
 */
function blankedWith(response: unknown, refusal: string): unknown {
  if (!isData(response)) return refusal;
  const blank = blanked(response) as Data;
  const field = ['stdout', 'content', 'output', 'result', 'text', 'message'].find(
    (key) => typeof response[key] === 'string',
  );
  return field === undefined ? blank : { ...blank, [field]: refusal };
}

/** `value` with every string emptied but `type` tags (tool results are JSON: no cycles). */
function blanked(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key === 'type' ? value : '';
  if (Array.isArray(value)) return value.map((item) => blanked(item));
  if (!isData(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blanked(v, k)]));
}

/**
 * Whether `b` has `a`'s shape: the same kinds of values, objects with the same keys, arrays as
 * long, `type` tags (which say which of a tool's shapes a value is) unchanged.
 */
export function sameShape(a: unknown, b: unknown, key?: string): boolean {
  if (typeof a !== typeof b) return false;
  if (typeof a === 'string') return key !== 'type' || a === b;
  if (a === null || b === null) return a === b;
  if (typeof a !== 'object') return true;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const list = b as unknown[];
    return a.length === list.length && a.every((item, i) => sameShape(item, list[i]));
  }
  const left = a as Data;
  const right = b as Data;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((k) => k in right && sameShape(left[k], right[k], k));
}

function isData(value: unknown): value is Data {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
