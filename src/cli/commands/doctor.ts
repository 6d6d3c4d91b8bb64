import { join } from 'node:path';
import { match } from 'ts-pattern';
import { hermesCommand } from '../../command-name.js';
import { isFile } from '../../config/locations.js';
import type { ExtensionInfo } from '../../extensions/types.js';
import { insideRelative } from '../../fs/paths.js';
import { declarationOf, HOOK_NAMES, type HookInput, type HookName } from '../../hooks/index.js';
import { indentedMessage } from '../../log/message-lines.js';
import { optionalPeer } from '../../optional-peers.js';
import { runHook } from '../../runtime/run-hook.js';
import type { Runtime } from '../../runtime/runtime.js';
import { projectCodeEntries } from '../../trust/project-code-entries.js';
import {
  cannotTrust,
  inspectProjectTrust,
  trustForRun,
  untrustedStanding,
} from '../../trust/project-trust.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { cwdFlag } from '../cwd-flag.js';
import { type Io, paint } from '../io.js';
import { advice, shownBy } from './doctor/advice.js';
import { agentHookChecks, llmHandlers } from './doctor/agent-hooks.js';
import { auditTrailChecks } from './doctor/audit-trail.js';
import type { Check } from './doctor/check.js';
import { daemonLogChecks } from './doctor/daemon-log.js';
import { finalAnswerChecks } from './doctor/final-answer.js';
import { hermesFormChecks } from './doctor/hermes-form.js';
import { hermesPluginChecks } from './doctor/hermes-plugin.js';
import { managedChecks } from './doctor/managed.js';
import { mcpServerChecks } from './doctor/mcp-servers.js';
import { optionalPeerChecks } from './doctor/optional-peers.js';
import { pauseChecks } from './doctor/pause.js';
import { resultHandlers, resultHookChecks } from './doctor/result-hooks.js';
import { sandboxCheck } from './doctor/sandbox.js';
import { subagentChecks } from './doctor/subagents.js';

const MARKS = { ok: '✓', info: 'i', warning: '!', error: '✗' } as const;
const STYLES = { ok: 'green', info: 'dim', warning: 'yellow', error: 'red' } as const;

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
  const workflowGuard = runtime.extensions.some(
    (e) => e.name === 'workflow-guard' && e.status === 'enabled',
  );
  const projectCode = projectCodeEntries({ cwd: context.cwd, home: context.home }).map(
    (entry) => insideRelative(runtime.projectRoot, entry) ?? entry,
  );
  const failed = runtime.extensions.flatMap((e) =>
    e.status === 'error' && e.reason !== undefined ? [{ name: e.name, reason: e.reason }] : [],
  );
  const peers = optionalPeerChecks({ projectCode, workflowGuard, failed });
  // The sandbox runtime's own line says it is missing, and how to install it: no second line.
  const sandboxRuntime = optionalPeer('@anthropic-ai/sandbox-runtime').usable;
  const checks = [
    ...pauseChecks(),
    ...configChecks(context),
    ...runtime.extensions.map((ext) => extensionCheck(ext, runtime)),
    ...managedChecks(runtime.extensions),
    ...looseDiagnostics(runtime),
    ...trustChecks(context, runtime),
    ...peers,
    ...agentHookChecks(runtime.projectRoot, llmHandlers(runtime)),
    ...resultHookChecks(runtime.projectRoot, resultHandlers(runtime)),
    ...finalAnswerChecks(runtime.projectRoot, runtime),
    ...hermesPluginChecks(),
    ...hermesFormChecks(),
    ...subagentChecks(runtime.projectRoot, workflowGuard),
    ...mcpServerChecks(runtime.projectRoot),
    ...sharedPriorities(runtime.extensions),
    ...(sandboxRuntime ? [sandboxCheck(workflowGuard)] : []),
    ...dryRunChecks,
    ...daemonLogChecks(context.home),
    ...auditTrailChecks(
      runtime.projectRoot,
      runtime.extensions.some((e) => e.name === 'audit-log' && e.status === 'enabled'),
    ),
  ];
  const errors = checks.filter((c) => c.level === 'error').length;
  const warnings = checks.filter((c) => c.level === 'warning').length;
  const enabled = runtime.extensions.filter((e) => e.status === 'enabled').length;
  if (options.json) {
    // `problems` counts warnings too, as it always has; `errors` decides the exit code.
    io.out(JSON.stringify({ checks, problems: errors + warnings, errors, warnings }, null, 2));
  } else {
    for (const check of checks) {
      io.out(
        `${paint(io, STYLES[check.level], MARKS[check.level])} ${check.subject}: ${indentedMessage(check.message, '    ')}`,
      );
      if (check.fix) io.out(`    fix: ${check.fix}`);
    }
    io.out('');
    io.out(summary(errors, warnings, enabled));
  }
  return errors > 0 ? 1 : 0;
}

/** The last line, in the words of the exit code: problems exit 1, warnings alone exit 0. */
function summary(errors: number, warnings: number, enabled: number): string {
  if (errors > 0) {
    return `${errors} problem(s) found${warnings > 0 ? `, and ${warnings} warning(s)` : ''}.`;
  }
  return warnings > 0 ? `${warnings} warning(s) found.` : `All ${enabled} extensions look healthy.`;
}

function configChecks(context: CommandContext): Check[] {
  // loadRuntime rejected before we got here if a config file did not parse or validate.
  const file = join(context.home, 'config.yaml');
  return isFile(file)
    ? [{ level: 'ok', subject: 'config', message: `${file} parses and validates` }]
    : [];
}

function extensionCheck(ext: ExtensionInfo, runtime: Runtime): Check {
  const from = ext.managed && ext.source !== 'managed' ? `managed, ${ext.source}` : ext.source;
  const subject = `${ext.name} (${from}${ext.path ? `, ${ext.path}` : ''})`;
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

/** The diagnostics no other check shows, each under the file to correct. */
function looseDiagnostics(runtime: Runtime): Check[] {
  return runtime.diagnostics
    .filter((d) => shownBy(d.code) === 'itself')
    .map((d) => ({
      level: d.severity,
      // An order problem of an in-memory extension has no file: its name says where.
      subject: d.file ?? d.extension ?? 'config',
      message: d.message,
      ...advice(d.code),
    }));
}

function trustChecks(context: CommandContext, runtime: Runtime): Check[] {
  const trust = trustForRun({ cwd: context.cwd, home: context.home });
  if (trust.state === 'no-project-code') return [];
  if (trust.state === 'override') {
    const recorded = inspectProjectTrust({ cwd: context.cwd, home: context.home });
    return [
      {
        level: 'warning',
        subject: 'project trust',
        message: `${trust.root} is trusted for this run only, by HERMES_TRUST_PROJECT=1 (it ${untrustedStanding(recorded)}): its ${trust.files.length} file(s) of extensions and config are loaded`,
        fix: `review them, then: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
      },
    ];
  }
  if (trust.trusted) {
    return [
      {
        level: 'ok',
        subject: 'project trust',
        message: `${trust.root} is trusted (fingerprint ${trust.fingerprint.slice(0, 12)})`,
      },
    ];
  }
  // Trusted once and changed since: the trusted state is in force, or nothing runs if it is lost.
  const held = runtime.diagnostics.find((d) => d.code === 'TRUST_HELD');
  if (held !== undefined) {
    return [
      {
        level: held.severity === 'error' ? 'error' : 'warning',
        subject: 'project trust',
        message: held.message,
        fix: `review the change, then: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
      },
    ];
  }
  if (trust.state === 'unreadable') {
    return [
      {
        level: 'error',
        subject: 'project trust',
        message: cannotTrust(trust),
        fix: `move the code these name into the project (or out of the extensions folder), then: ${hermesCommand()} extensions trust`,
      },
    ];
  }
  return [
    {
      level: 'warning',
      subject: 'project trust',
      message: `${trust.root} ${untrustedStanding(trust)}: its ${trust.files.length} file(s) of extensions and config are ignored`,
      fix: `review them, then: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
    },
  ];
}

function sharedPriorities(extensions: readonly ExtensionInfo[]): Check[] {
  const byKey = new Map<string, string[]>();
  // Groups where a handler names another extension: there before/after may decide, not load order.
  const named = new Set<string>();
  for (const ext of extensions.filter((e) => e.status === 'enabled')) {
    for (const { hook, priority, before, after } of ext.hooks) {
      const key = `${hook}@${priority}`;
      const names = byKey.get(key) ?? [];
      if (!names.includes(ext.name)) names.push(ext.name);
      byKey.set(key, names);
      if (before !== undefined || after !== undefined) named.add(key);
    }
  }
  return [...byKey.entries()]
    .filter(([, names]) => names.length > 1)
    .map(([key, names]) => {
      const [hook, priority] = key.split('@');
      // Ties are ordered, by load order (CONTRIBUTING.md, Decisions worth knowing): worth knowing, not wrong.
      return {
        level: 'info',
        subject: `${hook} priority ${priority}`,
        message: named.has(key)
          ? `${names.join(', ')} share it; their before/after, then load order, decide who runs first`
          : `${names.join(', ')} share it, so load order decides who runs first (${names.join(' before ')})`,
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
      // Sample calls, not the agent's: kept out of the observers, the audit trail among them.
      trial: true,
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
