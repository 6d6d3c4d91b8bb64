import type { ShadowRecord } from './report-read.js';

/** What one shadowed extension would have done, over the records read. */
export interface ShadowSummary {
  extension: string;
  /** Calls it would have blocked, asked a person about, and changed (rewrite, inject_*, ...). */
  would_block: number;
  would_ask: number;
  would_change: number;
  /** Per tool (or, off a tool call, per hook: `(before_llm_call)`), how many decisions. */
  tools: Array<{ name: string; count: number }>;
  /** The reasons of its blocks and asks, grouped by their text, most frequent first. */
  reasons: Array<{ action: string; message: string; count: number }>;
  first: string;
  last: string;
}

/** Groups the records by extension, in order of the extension's name. */
export function summarize(records: readonly ShadowRecord[]): ShadowSummary[] {
  const byExtension = new Map<string, ShadowRecord[]>();
  for (const record of records) {
    const list = byExtension.get(record.extension) ?? [];
    list.push(record);
    byExtension.set(record.extension, list);
  }
  return [...byExtension.keys()].sort().map((extension) => {
    const own = byExtension.get(extension) as ShadowRecord[];
    const count = (action: string) => own.filter((r) => r.action === action).length;
    const times = own.map((r) => r.at).sort();
    return {
      extension,
      would_block: count('block'),
      would_ask: count('ask'),
      would_change: own.length - count('block') - count('ask'),
      tools: counted(own.map((r) => r.toolName ?? `(${r.hook})`)).map(([name, n]) => ({
        name,
        count: n,
      })),
      reasons: counted(
        own.filter((r) => r.message !== undefined).map((r) => `${r.action}\u0000${r.message}`),
      ).map(([key, n]) => {
        const [action, message] = key.split('\u0000') as [string, string];
        return { action, message, count: n };
      }),
      first: times[0] ?? '',
      last: times.at(-1) ?? '',
    };
  });
}

/** Each distinct value with how often it occurs, most frequent first, then by value. */
function counted(values: readonly string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
