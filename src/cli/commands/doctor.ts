import { join } from 'node:path';
import { match } from 'ts-pattern';
import { isFile } from '../../config/locations.js';
import type { DiagnosticCode, ExtensionInfo } from '../../extensions/types.js';
import { declarationOf, HOOK_NAMES, type HookInput, type HookName } from '../../hooks/index.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../host/command-hook/agents.js';
import { type InstalledHook, inspectInstalledHooks } from '../../host/command-hook/installed.js';
import { OBSERVER_EVENTS } from '../../observe/events.js';
import type { Runtime } from '../../runtime/runtime.js';
import { runHook } from '../../runtime/turn.js';
import { cannotTrust, inspectProjectTrust, whyUntrusted } from '../../trust/project-trust.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { type Io, paint } from '../io.js';

export interface Check {
  level: 'ok' | 'warning' | 'error';
  subject: string;
  message: string;
  /** The diagnostic the check reports, when it reports one. */
  code?: DiagnosticCode;
  fix?: string;
}

const MARKS = { ok: '✓', warning: '!', error: '✗' } as const;

/**
 * `hermes extensions doctor [--json]`: every check with a reason and a fix, then a dry run of
 * every hook on sample payloads in a throwaway turn. Exit 1 when any check is an error.
 */
export async function doctorCommand(context: CommandContext, options: { json?: boolean }, io: Io) {
  // The dry run reaches every handler: broken extensions are reported as load errors already.
  const { runtime } = await loadForCommand(context, { onLoadError: 'warn' });
  let dryRunChecks: Check[];
  try {
    dryRunChecks = await dryRun(runtime);
  } finally {
    await runtime.close();
  }
  const checks = [
    ...configChecks(context),
    ...runtime.extensions.map((ext) => extensionCheck(ext, runtime)),
    ...looseDiagnostics(runtime),
    ...trustChecks(context),
    ...agentHookChecks(runtime.projectRoot, llmHandlers(runtime)),
    ...sharedPriorities(runtime.extensions),
    ...dryRunChecks,
  ];
  const errors = checks.filter((c) => c.level === 'error').length;
  const problems = checks.filter((c) => c.level !== 'ok').length;
  const enabled = runtime.extensions.filter((e) => e.status === 'enabled').length;
  if (options.json) {
    io.out(JSON.stringify({ checks, problems, errors }, null, 2));
  } else {
    for (const check of checks) {
      const style = check.level === 'ok' ? 'green' : check.level === 'error' ? 'red' : 'yellow';
      io.out(`${paint(io, style, MARKS[check.level])} ${check.subject}: ${check.message}`);
      if (check.fix) io.out(`    fix: ${check.fix}`);
    }
    io.out('');
    io.out(
      problems === 0 ? `All ${enabled} extensions look healthy.` : `${problems} problem(s) found.`,
    );
  }
  return errors > 0 ? 1 : 0;
}

function configChecks(context: CommandContext): Check[] {
  // loadRuntime rejected before we got here if a config file did not parse or validate.
  const file = join(context.home, 'config.yaml');
  return isFile(file)
    ? [{ level: 'ok', subject: 'config', message: `${file} parses and validates` }]
    : [];
}

function extensionCheck(ext: ExtensionInfo, runtime: Runtime): Check {
  const subject = `${ext.name} (${ext.source}${ext.path ? `, ${ext.path}` : ''})`;
  return match(ext.status)
    .returnType<Check>()
    .with('enabled', () => {
      const slow = runtime.diagnostics.find(
        (d) => d.extension === ext.name && d.code === 'SLOW_LOAD',
      );
      return slow
        ? { level: 'warning', subject, message: slow.message, ...advice('SLOW_LOAD') }
        : {
            level: 'ok',
            subject,
            message: `loaded and set up in ${ext.loadMs.toFixed(1)} ms, ${ext.hooks.length} handler(s)`,
          };
    })
    .with('error', () => ({
      level: 'error',
      subject,
      message: ext.reason ?? 'failed to load',
      ...advice(ext.code ?? 'LOAD_FAILED'),
    }))
    .with('shadowed', () => ({
      level: 'warning',
      subject,
      message: ext.reason ?? 'shadowed',
      ...advice('SHADOWED'),
    }))
    .with('untrusted', () => ({
      level: 'warning',
      subject,
      message: 'not loaded: the project is not trusted',
      ...advice('UNTRUSTED'),
    }))
    .with('disabled', () => ({
      level: 'ok',
      subject,
      message: `disabled (${ext.reason ?? 'by config'})`,
    }))
    .exhaustive();
}

/**
 * The hermes hooks installed in Claude Code's and Codex's settings (user-wide and this project's):
 * a command whose paths are gone fails on every event, and both agents let a failing hook
 * through, so the extensions would silently stop running there. No hook installed, no check.
 */
function agentHookChecks(projectRoot: string, llmExtensions: string[]): Check[] {
  return Object.values(COMMAND_HOOK_AGENTS).flatMap((agent) =>
    inspectInstalledHooks(agent, projectRoot).flatMap((hook): Check[] => {
      const checks = [installedHookCheck(agent, hook, projectRoot)];
      if (hook.missing.length === 0 && llmExtensions.length > 0) {
        checks.push(hookModeLlmCheck(agent, hook.file, llmExtensions));
      }
      return checks;
    }),
  );
}

/** Whether an installed hook runs, and for every event it should. */
function installedHookCheck(
  agent: CommandHookAgent,
  hook: InstalledHook,
  projectRoot: string,
): Check {
  const subject = `${agent.title} hook (${hook.file})`;
  const fix = `hermes hook install ${agent.name}${hook.scope === 'user' ? '' : ` --${hook.scope} --cwd ${projectRoot}`}`;
  if (hook.missing.length > 0 && hook.command === agent.projectCommand) {
    return {
      level: 'error',
      subject,
      message: `its command runs the project's ${hook.missing.join(' and ')}, which is not installed: ${agent.title} lets a failing hook through, so no extension runs there`,
      fix: 'npm install --save-dev hermes-extensions (in the project)',
    };
  }
  if (hook.missing.length > 0) {
    return {
      level: 'error',
      subject,
      message: `its command runs ${hook.missing.join(' and ')}, which no longer exist: ${agent.title} lets a failing hook through, so no extension runs there`,
      fix,
    };
  }
  const absent = agent.installEvents.filter((event) => !hook.events.includes(event));
  if (absent.length > 0) {
    return {
      level: 'warning',
      subject,
      message: `not registered for ${absent.join(', ')}${missingMeans(agent, absent)}`,
      fix,
    };
  }
  return {
    level: 'ok',
    subject,
    message: `runs the hermes hook for ${hook.events.join(', ')}`,
  };
}

/** What an installed hook misses without the events it is not registered for, worst first. */
function missingMeans(agent: CommandHookAgent, absent: string[]): string {
  if (absent.includes('PreToolUse')) return ': tool calls are not checked';
  if (absent.some((event) => agent.afterToolEvents.includes(event)))
    return ': before_llm_call does not run after tool results';
  if (absent.includes('PostToolUse'))
    return ': observers (audit-log, otel) are not told what tools did';
  return '';
}

/**
 * before_llm_call in hook mode (README, Claude Code and Codex): injections reach the model as
 * context, a rewrite of the messages cannot be expressed. Whether a handler rewrites cannot be
 * known without running it, so the extensions that handle the hook are named.
 */
function hookModeLlmCheck(agent: CommandHookAgent, file: string, extensions: string[]): Check {
  const where = agent.afterToolEvents.includes('PostToolBatch')
    ? 'at the prompt and after each batch of tool results'
    : 'at the prompt and after each tool result';
  return {
    level: 'warning',
    subject: `${agent.title} hook (${file})`,
    message: `${extensions.join(', ')} handle${extensions.length === 1 ? 's' : ''} before_llm_call, which runs ${where}: injections are delivered as context; if it rewrites messages, that is not applied in hook mode`,
  };
}

/** The enabled extensions with a before_llm_call handler. */
function llmHandlers(runtime: Runtime): string[] {
  return runtime.extensions
    .filter(
      (ext) => ext.status === 'enabled' && ext.hooks.some((h) => h.hook === 'before_llm_call'),
    )
    .map((ext) => ext.name);
}

/** A check's code and what doctor advises for it. */
function advice(code: DiagnosticCode): { code: DiagnosticCode; fix: string } {
  return { code, fix: fixFor(code) };
}

/** What to do about each kind of diagnostic: a code without advice does not compile. */
function fixFor(code: DiagnosticCode): string {
  return match(code)
    .with('PATH_NOT_FOUND', () => 'correct the entry in extensions.paths, or install the package')
    .with(
      'NO_ENTRY',
      () => 'add an index.ts (.mts, .js, .mjs), or set "exports" or "main" in its package.json',
    )
    .with('ENTRY_OUTSIDE_FOLDER', () => "move the code into the extension's folder")
    .with(
      'LOAD_FAILED',
      () => 'fix the error in that file (run it through tsc or node to see it whole)',
    )
    .with(
      'LOAD_TIMEOUT',
      () => 'make the module finish loading: no top-level await on something that may never settle',
    )
    .with(
      'NO_DEFAULT_EXPORT',
      () => 'end the entry with `export default defineExtension({ name, setup(hermes) { … } })`',
    )
    .with(
      'NOT_AN_EXTENSION',
      () =>
        'export what `defineExtension({ name, setup(hermes) { … } })` returns, as the message says',
    )
    .with('CONFIG_SCHEMA', () => "correct the keys named above in the extension's config section")
    .with('UNKNOWN_HOOK', () => `register on one of ${HOOK_NAMES.join(', ')}`)
    .with('UNKNOWN_EVENT', () => `observe one of ${OBSERVER_EVENTS.join(', ')}, or '*'`)
    .with(
      'INVALID_REGISTRATION',
      () => 'correct the hermes.on, hermes.observe or hermes.onClose call the message names',
    )
    .with(
      'SETUP_FAILED',
      () => 'make setup(hermes) finish without throwing (the message is its error)',
    )
    .with(
      'SETUP_TIMEOUT',
      () => 'make setup(hermes) finish sooner (defer slow work to the first handler call)',
    )
    .with(
      'SLOW_LOAD',
      () => 'do less at import and in setup (defer work to the first handler call)',
    )
    .with('SHADOWED', () => 'rename one of the two, or remove the one you do not want')
    .with(
      'CONFIG_UNKNOWN_KEY',
      () => 'correct the key (or remove it); until then its setting does not apply',
    )
    .with(
      'DISABLED_NOT_FOUND',
      () =>
        'correct the name in extensions.disabled (`hermes extensions list` names them) or remove it',
    )
    .with(
      'PATH_OUTSIDE_PROJECT',
      () => 'name it in $HERMES_HOME/config.yaml instead, if you trust it',
    )
    .with(
      'GLOBAL_DIR_IN_PROJECT',
      () => "set global_dir in $HERMES_HOME/config.yaml, or remove it from the project's config",
    )
    .with('UNTRUSTED', () => 'hermes extensions trust')
    .exhaustive();
}

/**
 * Which check shows a diagnostic: its extension's own (above), the project trust check, or one of
 * its own (config and discovery problems, and config keys nothing reads, those inside an
 * extension's section too, each under the file to correct).
 */
function shownBy(code: DiagnosticCode): 'extension' | 'trust' | 'itself' {
  return match(code)
    .returnType<'extension' | 'trust' | 'itself'>()
    .with(
      'LOAD_FAILED',
      'LOAD_TIMEOUT',
      'NO_DEFAULT_EXPORT',
      'NOT_AN_EXTENSION',
      'CONFIG_SCHEMA',
      'UNKNOWN_HOOK',
      'UNKNOWN_EVENT',
      'INVALID_REGISTRATION',
      'SETUP_FAILED',
      'SETUP_TIMEOUT',
      'SLOW_LOAD',
      'SHADOWED',
      () => 'extension',
    )
    .with('UNTRUSTED', () => 'trust')
    .with(
      'PATH_NOT_FOUND',
      'NO_ENTRY',
      'ENTRY_OUTSIDE_FOLDER',
      'CONFIG_UNKNOWN_KEY',
      'DISABLED_NOT_FOUND',
      'PATH_OUTSIDE_PROJECT',
      'GLOBAL_DIR_IN_PROJECT',
      () => 'itself',
    )
    .exhaustive();
}

/** The diagnostics no other check shows, each under the file to correct. */
function looseDiagnostics(runtime: Runtime): Check[] {
  return runtime.diagnostics
    .filter((d) => shownBy(d.code) === 'itself')
    .map((d) => ({
      level: d.severity === 'error' ? 'error' : 'warning',
      subject: d.file ?? 'config',
      message: d.message,
      ...advice(d.code),
    }));
}

function trustChecks(context: CommandContext): Check[] {
  const trust = inspectProjectTrust({ cwd: context.cwd, home: context.home });
  if (trust.state === 'no-project-code') return [];
  if (trust.trusted) {
    return [
      {
        level: 'ok',
        subject: 'project trust',
        message: `${trust.root} is trusted (fingerprint ${trust.fingerprint.slice(0, 12)})`,
      },
    ];
  }
  if (trust.state === 'unreadable') {
    return [
      {
        level: 'error',
        subject: 'project trust',
        message: cannotTrust(trust),
        fix: 'move the code these name into the project (or out of the extensions folder), then: hermes extensions trust',
      },
    ];
  }
  return [
    {
      level: 'warning',
      subject: 'project trust',
      message: `${trust.root} is not trusted (${whyUntrusted(trust)}): its ${trust.files.length} file(s) of extensions and config are ignored`,
      fix: `review them, then: hermes extensions trust --cwd ${trust.root}`,
    },
  ];
}

function sharedPriorities(extensions: readonly ExtensionInfo[]): Check[] {
  const byKey = new Map<string, string[]>();
  for (const ext of extensions.filter((e) => e.status === 'enabled')) {
    for (const { hook, priority } of ext.hooks) {
      const key = `${hook}@${priority}`;
      const names = byKey.get(key) ?? [];
      if (!names.includes(ext.name)) names.push(ext.name);
      byKey.set(key, names);
    }
  }
  return [...byKey.entries()]
    .filter(([, names]) => names.length > 1)
    .map(([key, names]) => {
      const [hook, priority] = key.split('@');
      return {
        level: 'warning',
        subject: `${hook} priority ${priority}`,
        message: `${names.join(', ')} share it, so load order decides who runs first (${names.join(' before ')})`,
        fix: 'give the handlers different priorities if their order matters',
      };
    });
}

/** Every hook with handlers, run on its declaration's samples in a throwaway turn; handler errors are found. */
async function dryRun(runtime: Runtime): Promise<Check[]> {
  const hooks = HOOK_NAMES.filter((hook) => runtime.hasHook(hook));
  if (hooks.length === 0) return [];
  const failures = new Map<string, Check>();
  // Tools the handlers filter on get a sample call each, so a handler of no sample tool runs too.
  const tools = new Set<string>();
  for (const ext of runtime.extensions) {
    for (const h of ext.hooks) for (const t of h.tools ?? []) if (!t.startsWith('/')) tools.add(t);
  }
  let runs = 0;
  await runtime.runTurn(
    {
      sessionId: `doctor-${process.pid}`,
      onTrace: (step) => {
        if (step.error === undefined) return;
        failures.set(`${step.extension}:${step.hook}:${step.error}`, {
          level: 'error',
          subject: `${step.extension} in ${step.hook}`,
          message: `the dry run failed: ${step.error}`,
          fix: 'make the handler return a HookResult (or nothing) without throwing, within its timeoutMs',
        });
      },
    },
    async (turn) => {
      for (const hook of hooks) {
        for (const input of samplesOf(hook, tools)) {
          runs++;
          await runHook(turn, hook, input);
        }
      }
    },
  );
  return failures.size > 0
    ? [...failures.values()]
    : [
        {
          level: 'ok',
          subject: 'dry run',
          message: `${runs} sample call(s) over ${hooks.join(', ')} ran without a handler error`,
        },
      ];
}

/** A hook's samples, plus one call of each of `tools` for a hook whose handlers filter by tool; each once. */
function samplesOf<H extends HookName>(hook: H, tools: ReadonlySet<string>): HookInput<H>[] {
  const decl = declarationOf(hook);
  const { sampleOfTool } = decl;
  const all = [...decl.samples, ...(sampleOfTool ? [...tools].map(sampleOfTool) : [])];
  return [...new Map(all.map((input) => [JSON.stringify(input), input])).values()];
}
