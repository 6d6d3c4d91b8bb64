import { delimiter, join } from 'node:path';
import { jsonLines, tree, tsExtension } from '../support/fixtures.js';
import { root, runProcess } from '../support/run-bin.js';

export const PLUGIN = join(root, 'clients/hermes-agent-plugin');
const STAND_IN = join(root, 'test/hermes-agent/stand_in.py');

/** A tool call through Hermes' whole tool path (stand_in_tools.py `run_tool`). */
export interface ToolStep {
  name: string;
  args: Record<string, unknown>;
  tool_call_id: string;
  session_id: string;
  turn_id: string;
  task_id?: string;
  /** What a tool other than `terminal` returns. */
  result?: string;
  /** Where an earlier `cd` left Hermes' terminal. */
  terminal_cwd?: string;
  /** The person's answer when Hermes asks about the call. */
  approve?: boolean;
}
export type Step =
  | { hook: string; kwargs: Record<string, unknown> }
  | { tool: ToolStep }
  | { cli: string[] }
  | { kill_children: true }
  | { llm: { kwargs: Record<string, unknown>; request: Record<string, unknown> } };
export interface Directive {
  action: string | null;
  message?: string;
  rule_key?: string;
  args?: unknown;
}
export interface StandInRecord {
  hook?: string;
  tool?: string;
  model_gets?: unknown;
  ran_with?: Record<string, unknown> | null;
  final?: unknown;
  results?: unknown[];
  directive?: Directive;
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
 * The stand-in is a Hermes with middleware (v0.17.0 and later) unless `middleware` is false: then
 * it is an older one, whose plugin context has no `register_middleware`.
 */
export async function standIn(
  steps: Step[],
  options: {
    home: string;
    project: string;
    plugin?: string;
    hookTimeout?: number;
    middleware?: boolean;
    /** Plugin folders Hermes loads after this one, in this order. */
    pluginsAfter?: string[];
    /** More of Hermes' environment (`HERMES_YOLO_MODE`…). */
    env?: Record<string, string>;
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
      ...options.env,
    },
  });
  return { ...run, records: jsonLines(results) as StandInRecord[] };
}

export const turn = { session_id: 's1', turn_id: 't1', platform: 'cli' };
export const llmCall = (userMessage: string, ids: Record<string, string> = turn) => ({
  hook: 'pre_llm_call',
  kwargs: {
    ...ids,
    user_message: userMessage,
    conversation_history: [],
    is_first_turn: true,
    model: 'test/model',
    task_id: '',
  },
});
export const toolCall = (
  toolName: string,
  args: Record<string, unknown>,
  id: string,
  ids: Record<string, string> = turn,
) => ({
  hook: 'pre_tool_call',
  kwargs: { ...ids, tool_name: toolName, args, task_id: '', tool_call_id: id },
});

/** A home with `extensions` of its own, and workflow-guard configured unless `guarded` is false. */
export function homeWith(extensions: Record<string, string> = {}, guarded = true): string {
  const guard = join(root, 'extensions/workflow-guard');
  return tree({
    'config.yaml': `model: some/model\nextensions:\n  paths: [${guarded ? JSON.stringify(guard) : ''}]\n`,
    ...Object.fromEntries(
      Object.entries(extensions).map(([name, body]) => [`extensions/${name}.ts`, body]),
    ),
  });
}

/** An extension that writes each `event` it observes to `file`, a JSON line each. */
export const observer = (file: string, event = 'post_tool_call') =>
  tsExtension(
    'observer',
    `hermes.observe(${JSON.stringify(event)}, (e) => appendFileSync(${JSON.stringify(file)}, JSON.stringify(e) + '\\n'));`,
    "import { appendFileSync } from 'node:fs';",
  );
