import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli/io.js';
import type { HookOutcomeReport } from '../host/run-conversation.js';
import { runConversation } from '../host/run-conversation.js';
import type { Tools } from '../host/types.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { loadRuntime } from '../runtime/load-runtime.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { PLAN_PATH, SESSION } from './script.js';
import { projectTools } from './tools.js';

const SYSTEM_PROMPT = 'You are a coding agent working in this repository.';
const USER_MESSAGE = 'fix the login bug: users who type their email with capitals cannot log in';

/**
 * The README's main job: one agent session on a throwaway copy of demo/sample-project (shipped
 * with the package, so `npx hermes demo` runs from any installed copy), with
 * workflow-guard and module-router loaded from disk the way a user installs them, told as a story
 * of every decision and the extension that made it. No network, no API key: the model is
 * scripted. Returns the exit code: 1 if the session did not go as the guards promise.
 */
export async function runDemo(
  print: (line: string) => void = (line) => console.log(line),
): Promise<number> {
  const sample = join(PACKAGE_ROOT, 'demo', 'sample-project');
  if (!existsSync(sample))
    throw new CliError(
      `the demo's sample project is missing from this installation of hermes-extensions (${sample}); reinstall the package (npm install --save-dev hermes-extensions)`,
      2,
    );
  const work = mkdtempSync(join(tmpdir(), 'hermes-demo-'));
  let closeRuntime = async () => {};
  try {
    const project = join(work, 'project');
    cpSync(sample, project, { recursive: true });
    mkdirSync(join(project, '.git'));
    const home = join(work, 'hermes-home');
    mkdirSync(home);
    const extension = (name: string) => JSON.stringify(join(PACKAGE_ROOT, 'extensions', name));
    writeFileSync(
      join(home, 'config.yaml'),
      `extensions:\n  paths:\n    - ${extension('workflow-guard')}\n    - ${extension('module-router')}\n`,
    );

    const quiet = () => {};
    const log = (line: string) => print(`  · ${line}`);
    const runtime = await loadRuntime({
      cwd: project,
      home,
      logger: { debug: quiet, info: log, warn: log, error: log },
    });
    // Closed before the throwaway project goes: what extensions buffered is written while it exists.
    closeRuntime = () => runtime.close();
    print('hermes-extensions demo: one agent session under workflow-guard and module-router');
    print(
      "(a throwaway copy of the package's demo/sample-project; a scripted model; no network)\n",
    );
    for (const ext of runtime.extensions) {
      print(
        `  loaded ${ext.name} ${ext.version ?? ''} (${ext.status}, ${Math.round(ext.loadMs)} ms)`,
      );
    }
    const errors = runtime.diagnostics.filter((d) => d.severity === 'error');
    for (const d of errors) print(`  error: ${d.message}`);
    if (errors.length > 0) return 1;

    print(`\nuser: ${USER_MESSAGE}`);
    const model = scriptedModel(
      SESSION.map((step) => () => {
        print(`\nmodel: ${step.content}`);
        for (const c of step.toolCalls ?? [])
          print(`  calls ${c.name} ${brief(JSON.stringify(c.arguments))}`);
        return step;
      }),
    );
    const result = await runConversation({
      runtime,
      sessionId: 'demo',
      userMessage: USER_MESSAGE,
      systemPrompt: SYSTEM_PROMPT,
      model,
      tools: narrated(projectTools(project), print),
      onHookOutcome: narrator(print),
    });

    const login = readFileSync(join(project, 'src/auth/login.ts'), 'utf8');
    const decisions = result.toolCalls.map((c) =>
      c.blocked ? `blocked by ${c.blockedBy}` : 'ran',
    );
    const expected = [
      'blocked by module-router',
      'ran',
      'ran',
      'blocked by workflow-guard',
      'ran',
      'ran',
    ];
    const asPromised =
      JSON.stringify(decisions) === JSON.stringify(expected) &&
      login.includes('toLowerCase()') &&
      model.requests[0]?.messages.at(-2)?.content === `/start-feature ${USER_MESSAGE}` &&
      (model.requests.at(-1)?.systemPrompt.includes(`A plan exists at ${PLAN_PATH}`) ?? false);
    print(
      `\nIn all: ${decisions.length} tool calls, ${result.toolCalls.filter((c) => c.blocked).length} blocked; the fix landed after the plan.`,
    );
    if (!asPromised) print(`The session did not go as expected: ${JSON.stringify(decisions)}`);
    return asPromised ? 0 : 1;
  } finally {
    await closeRuntime();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Tells each chain decision that was not a plain pass, with the extension that made it. */
function narrator(print: (line: string) => void) {
  let lastInjections = '';
  return ({ hook, outcome, toolCall }: HookOutcomeReport) => {
    if (outcome.blocked) {
      const what = toolCall ? `${toolCall.name}` : hook;
      print(`  ✗ ${outcome.blockedBy} blocked ${what}:`);
      print(wrap(outcome.message, '      '));
      return;
    }
    for (const entry of outcome.trace) {
      if (entry.error) print(`  ! ${entry.extension}: ${entry.error}`);
    }
    const deciders = (action: string) =>
      [...new Set(outcome.trace.filter((e) => e.action === action).map((e) => e.extension))].join(
        ', ',
      );
    if (hook === 'transform_user_input' && outcome.changed) {
      print(`  ↻ ${deciders('rewrite')} rewrote the request to: "${brief(String(outcome.value))}"`);
    }
    if (hook === 'before_llm_call') {
      const request = outcome.value as {
        systemPrompt: string;
        messages: Array<{ content: string }>;
      };
      const injections = outcome.trace
        .filter((e) => e.action.startsWith('inject_'))
        .map((e) => `${e.extension}:${e.action}`)
        .join(' ');
      if (injections === lastInjections) return; // said already; the same goes into every request
      lastInjections = injections;
      if (deciders('inject_user')) {
        print(`  + ${deciders('inject_user')} reminds the model, in this request only:`);
        print(wrap(`"${request.messages.at(-1)?.content ?? ''}"`, '      '));
      }
      if (deciders('inject_system')) {
        print(`  + ${deciders('inject_system')} adds to the system prompt of this request:`);
        print(wrap(`"${request.systemPrompt.slice(SYSTEM_PROMPT.length).trim()}"`, '      '));
      }
    }
  };
}

function narrated(tools: Tools, print: (line: string) => void): Tools {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      {
        ...tool,
        execute: async (args: Record<string, unknown>) => {
          const result = await tool.execute(args);
          const lines = String(result).trim().split('\n');
          print(
            `  ✓ ${name} ran: ${brief(lines[0] ?? '')}${lines.length > 1 ? ` (+${lines.length - 1} lines)` : ''}`,
          );
          return result;
        },
      },
    ]),
  );
}

function brief(text: string, max = 90): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function wrap(text: string, indent: string, width = 96): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + word.length + 1 > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}
