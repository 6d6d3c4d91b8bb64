import { delimiter, join } from 'node:path';
import { jsonLines, tree } from '../support/fixtures.js';
import { root, runProcess } from '../support/run-bin.js';

export const PLUGIN = join(root, 'clients/hermes-agent-plugin');
const STAND_IN = join(root, 'test/hermes-agent/stand_in.py');

export type Step =
  | { hook: string; kwargs: Record<string, unknown> }
  | { cli: string[] }
  | { kill_children: true }
  | { llm: { kwargs: Record<string, unknown>; request: Record<string, unknown> } };

export interface StandInRecord {
  hook?: string;
  model_gets?: unknown;
  final?: unknown;
  results?: unknown[];
  directive?: { action: string | null; message?: string; rule_key?: string; args?: unknown };
  cli?: number;
  registered?: Record<string, number>;
  middleware?: Record<string, number>;
  problems?: string[];
  /** An `llm` step: the requests the model got (none when a middleware answered), the answer. */
  llm?: string;
  sent?: Record<string, unknown>[];
  valid?: boolean;
  text?: string | null;
  tool_calls?: string[];
}

/**
 * The plugin in the stand-in for Hermes' plugin host (stand_in.py), with a real bridge from this
 * checkout's dist/, in `project` under `home` ($HERMES_HOME): each step's record, and the output.
 * `middleware: false` stands in for a Hermes older than 0.17.0 (no `register_middleware`).
 */
export async function standIn(
  steps: Step[],
  options: {
    home: string;
    project: string;
    plugin?: string;
    hookTimeout?: number;
    middleware?: boolean;
    /** Plugin folders Hermes loads after this one. */
    pluginsAfter?: string[];
  },
) {
  const results = join(tree(), 'results.jsonl');
  const run = await runProcess('python3', [STAND_IN, options.plugin ?? PLUGIN, results], {
    cwd: options.project,
    stdin: JSON.stringify(steps),
    env: {
      HERMES_HOME: options.home,
      HOME: options.home,
      HERMES_TRUST_PROJECT: '',
      STAND_IN_HOOK_CALLBACK_TIMEOUT: String(options.hookTimeout ?? ''),
      STAND_IN_MIDDLEWARE: options.middleware === false ? '0' : '',
      STAND_IN_PLUGINS_AFTER: (options.pluginsAfter ?? []).join(delimiter),
    },
  });
  return { ...run, records: jsonLines(results) as StandInRecord[] };
}
