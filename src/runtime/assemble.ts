import type { ChainTimeouts } from '../chain/chain-deadline.js';
import { formatConfigIssues } from '../config/errors.js';
import { MODE_KEY, splitMode } from '../config/extension-mode.js';
import type { ExtensionsSection } from '../config/schema.js';
import type { ExtensionDefinition } from '../extensions/define.js';
import { diagnosticCodeOf, withDiagnosticCode } from '../extensions/failure-codes.js';
import { orderHandlers } from '../extensions/order.js';
import { SandboxDenyRead } from '../extensions/sandbox-deny-read.js';
import { type RegisteredCloser, type Registration, runSetup } from '../extensions/setup.js';
import type {
  Diagnostic,
  DiagnosticCode,
  ExtensionCandidate,
  ExtensionInfo,
} from '../extensions/types.js';
import { type Logger, scopedLogger } from '../log/logger.js';
import { ObserverIndex, type RegisteredObserver } from '../observe/observers.js';
import { type ConfigSource, configFilesOf, reportConfigProblems } from './config-problems.js';
import { HandlerIndex } from './handler-index.js';
import {
  describeLoadFailures,
  findLoadFailures,
  followedBy,
  loadFailureGuard,
} from './load-failures.js';
import { withoutManagedOrder } from './managed-order.js';
import { loadGroundJudge } from './protected-ground.js';
import { Runtime } from './runtime.js';

export interface AssembleOptions {
  candidates: readonly ExtensionCandidate[];
  section: ExtensionsSection;
  /**
   * The `extensions` section of each config file it was merged from, so a key nothing reads is
   * reported with the file it is in. Default: the merged section, from no file.
   */
  configSources?: readonly ConfigSource[];
  projectRoot: string;
  logger: Logger;
  /**
   * What discovery and config loading already found wrong. Error-severity ones (a configured
   * path or package that does not exist) are load failures, as an extension that failed is.
   */
  diagnostics?: readonly Diagnostic[];
  /** Warn about an extension whose load and setup take longer. Default SLOW_LOAD_MS. */
  slowLoadMs?: number;
  /** How long each extension's `setup` may take. Default SETUP_TIMEOUT_MS. */
  setupTimeoutMs?: number;
  /** Each hook's whole-chain limit; wins over the section's `chain_timeout_ms`. */
  chainTimeoutMs?: ChainTimeouts;
  /**
   * Where the user's own extensions are that the user's config names (`global_dir`, `paths`):
   * protected ground for this runtime (docs/trust.md, Protected ground).
   */
  userCode?: readonly string[];
}

/** A load (import plus setup) slower than this is worth a warning. */
export const SLOW_LOAD_MS = 1000;

/**
 * Turns candidates in load order into a runtime: later same-named candidates shadow earlier
 * ones, `enabled`/`disabled` apply, each extension's config is parsed by its schema, setups run
 * at the same time (each bounded by its timeout), and every failure stays with its own extension
 * as a diagnostic.
 * Handler order is fixed here once (`orderHandlers`, `extensions/order.ts`), with the candidates'
 * order as load order. One list per hook keeps the runner's loop as it is.
 */
export async function assembleRuntime(options: AssembleOptions): Promise<Runtime> {
  const { candidates, section, projectRoot, logger, slowLoadMs = SLOW_LOAD_MS } = options;
  const diagnostics: Diagnostic[] = [...(options.diagnostics ?? [])];
  const infos: ExtensionInfo[] = [];
  const registrations: Array<{ loadOrder: number; registration: Registration }> = [];
  const observers: RegisteredObserver[] = [];
  const closers: RegisteredCloser[] = [];
  const denyRead = new SandboxDenyRead();
  // Code that was not loaded cannot replace code that was; nothing replaces a managed extension.
  const winners = new Map<string, number>();
  const managed = new Set<string>();
  candidates.forEach((candidate, i) => {
    if (candidate.held !== undefined || managed.has(candidate.name)) return;
    winners.set(candidate.name, i);
    if (candidate.managed) managed.add(candidate.name);
  });
  const configSources = options.configSources ?? [{ section, where: 'config' }];
  const disabled = new Set(section.disabled ?? []);
  const loadingEnabled = section.enabled !== false;

  // Setups run at the same time, each bounded by its timeout, so N slow ones cost the slowest, not
  // their sum. What each finds is kept in its candidate's slot and gathered in load order after,
  // so diagnostics, observers and handler ties never depend on which setup finished first.
  const problems: Diagnostic[][] = candidates.map(() => []);
  const setUps: Array<
    Promise<{ observers: RegisteredObserver[]; closers: RegisteredCloser[] } | undefined>
  > = [];
  for (const [order, candidate] of candidates.entries()) {
    const info: ExtensionInfo = {
      name: candidate.name,
      source: candidate.source,
      ...(candidate.path === undefined ? {} : { path: candidate.path }),
      ...describe(candidate.definition),
      status: 'enabled',
      hooks: [],
      loadMs: candidate.loadMs,
      ...(candidate.managed ? { managed: true as const } : {}),
    };
    infos.push(info);
    const problem = (
      code: DiagnosticCode,
      message: string,
      severity: Diagnostic['severity'] = 'error',
      file = candidate.path,
    ) =>
      problems[order]?.push({
        code,
        severity,
        extension: candidate.name,
        file,
        message,
      });
    // Why it is not running, with the code its diagnostic has (`doctor` advises by it).
    const fail = (status: 'error' | 'shadowed', code: DiagnosticCode, reason: string) => {
      info.status = status;
      info.reason = reason;
      info.code = code;
    };

    if (candidate.held !== undefined) {
      info.status = candidate.held.status;
      info.reason = candidate.held.reason;
      if (candidate.held.status === 'untrusted') info.code = 'UNTRUSTED';
      if (candidate.held.code !== undefined) info.code = candidate.held.code;
      continue;
    }
    if (winners.get(candidate.name) !== order) {
      const winner = candidates[winners.get(candidate.name) as number] as ExtensionCandidate;
      const by = winner.managed ? 'managed' : winner.source;
      const reason = `shadowed by the ${by} extension${winner.path ? ` at ${winner.path}` : ''}`;
      // A lower layer's extension of a managed one's name: an attempt to replace it, ignored.
      const code = winner.managed && !candidate.managed ? 'MANAGED_OVERRIDE' : 'SHADOWED';
      fail('shadowed', code, reason);
      problem(code, `"${candidate.name}" (${candidate.source}) is ${reason}`, 'warning');
      continue;
    }
    // Before the load error: a disabled extension is not asked to run, so it cannot fail to.
    // A lower layer's `enabled: false` leaves managed extensions on (managed-rules.ts).
    if ((!loadingEnabled && !candidate.managed) || disabled.has(candidate.name)) {
      info.status = 'disabled';
      info.reason = loadingEnabled
        ? 'listed in extensions.disabled'
        : 'extensions.enabled is false';
      continue;
    }
    // Known before it loads: a shadowed extension that fails refuses no call (load-failures.ts).
    const declared = splitMode(candidate.name, section[candidate.name]);
    if ('mode' in declared && declared.mode === 'shadow') info.mode = 'shadow';
    if (candidate.loadError !== undefined || candidate.definition === undefined) {
      const { code, message } = candidate.loadError ?? {
        code: 'LOAD_FAILED',
        message: 'could not be loaded',
      };
      fail('error', code, message);
      problem(code, message);
      continue;
    }

    const definition = candidate.definition;
    setUps[order] = (async () => {
      const started = performance.now();
      try {
        const split = splitMode(definition.name, section[definition.name]);
        if ('problem' in split) throw modeError(definition.name, split.problem, configSources);
        const config = parseExtensionConfig(definition, split.config, configSources);
        const shadow = split.mode === 'shadow';
        const registered = await runSetup(definition, {
          config,
          shadow,
          denyRead,
          projectRoot,
          extensionDir: candidate.extensionDir ?? candidate.path,
          log: scopedLogger(logger, definition.name),
          ...(options.setupTimeoutMs === undefined ? {} : { timeoutMs: options.setupTimeoutMs }),
        });
        for (const registration of registered.handlers) {
          registrations.push({ loadOrder: order, registration });
        }
        info.hooks = registered.handlers.map(({ handler, before, after }) => ({
          hook: handler.hook,
          priority: handler.priority,
          ...(handler.phase === 'validate' ? { phase: 'validate' as const } : {}),
          ...(handler.tools ? { tools: handler.tools.display } : {}),
          ...(handler.when ? { when: true } : {}),
          ...(before.length > 0 ? { before: [...before] } : {}),
          ...(after.length > 0 ? { after: [...after] } : {}),
        }));
        return { observers: registered.observers, closers: registered.closers };
      } catch (error) {
        const code = diagnosticCodeOf(error, 'SETUP_FAILED');
        const reason = reasonOf(error);
        fail('error', code, reason);
        // Wrong config is corrected in the config file, not in the extension.
        problem(code, reason, 'error', error instanceof ConfigSchemaError ? error.file : undefined);
        return undefined;
      } finally {
        info.loadMs += performance.now() - started;
        if (info.loadMs > slowLoadMs) {
          problem(
            'SLOW_LOAD',
            `took ${Math.round(info.loadMs)} ms to load and set up (over ${slowLoadMs} ms); every agent start waits for it`,
            'warning',
          );
        }
      }
    })();
  }
  // Each slot settles (runSetup's failures are caught above), in candidate order.
  for (const registered of await Promise.all(setUps)) {
    observers.push(...(registered?.observers ?? []));
    closers.push(...(registered?.closers ?? []));
  }
  for (const found of problems) diagnostics.push(...found);

  const configured = new Map(
    candidates.map((c) => [c.name, candidates[winners.get(c.name) ?? -1]?.definition] as const),
  );
  reportConfigProblems(configSources, configured, diagnostics);
  // Every name discovered counts as known: naming one that is disabled or failed is no typo.
  const pathOf = (name: string) => candidates[winners.get(name) ?? -1]?.path;
  const order = orderHandlers(
    withoutManagedOrder(registrations, managed, pathOf, diagnostics),
    candidates.map((c) => c.name),
  );
  const ordered = order.handlers;
  for (const d of order.diagnostics) {
    // Under the file to correct: the extension that wrote the before/after.
    const path = pathOf(d.extension ?? '');
    diagnostics.push(path === undefined ? d : { ...d, file: path });
  }
  const failures = findLoadFailures(infos, options.diagnostics ?? []);
  if (failures.length > 0) {
    const what = describeLoadFailures(failures);
    if (section.on_load_error === 'warn') {
      logger.warn(
        followedBy(what, '; ', 'tool calls run without it (extensions.on_load_error: warn)'),
      );
    } else {
      logger.warn(
        followedBy(
          what,
          '; ',
          'every tool call is refused until it is fixed (extensions.on_load_error: block)',
        ),
      );
      ordered.unshift(loadFailureGuard(failures, logger));
    }
  }
  // The protected-ground rule's judge, so the runtime's first tool call is judged synchronously.
  await loadGroundJudge().catch(() => undefined);
  return new Runtime(
    new HandlerIndex(ordered),
    new ObserverIndex(observers),
    infos,
    diagnostics,
    projectRoot,
    failures,
    section.on_load_error ?? 'block',
    closers,
    { ...section.chain_timeout_ms, ...options.chainTimeoutMs },
    section.no_sandbox ?? 'refuse',
    denyRead,
    options.userCode,
  );
}

/** What a failed setup says, even when reading its error throws too. */
function reasonOf(error: unknown): string {
  try {
    const message = (error as Error | undefined)?.message;
    return typeof message === 'string' ? message : String(error);
  } catch {
    return 'setup failed with an error that could not be read';
  }
}

function describe(definition: ExtensionDefinition<unknown> | undefined) {
  return {
    ...(definition?.version === undefined ? {} : { version: definition.version }),
    ...(definition?.description === undefined ? {} : { description: definition.description }),
  };
}

/** An extension's config section that fails its schema, with the config file to correct. */
class ConfigSchemaError extends Error {
  constructor(
    message: string,
    readonly file: string | undefined,
  ) {
    super(message);
  }
}

/** A `mode` that is neither `enforce` nor `shadow`: the extension does not load (fails closed). */
function modeError(name: string, problem: string, sources: readonly ConfigSource[]): Error {
  const files = configFilesOf(name, [[MODE_KEY]], sources);
  const where = files.length === 0 ? '' : ` in ${files.join(' and ')}`;
  return withDiagnosticCode(
    'CONFIG_SCHEMA',
    new ConfigSchemaError(`config for "${name}"${where} is wrong:\n${problem}`, files[0]),
  );
}

function parseExtensionConfig(
  definition: ExtensionDefinition<unknown>,
  raw: unknown,
  sources: readonly ConfigSource[],
): unknown {
  const value = raw ?? {};
  if (!definition.configSchema) return value;
  const parsed = definition.configSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = formatConfigIssues(parsed.error, ['extensions', definition.name]);
  const files = configFilesOf(
    definition.name,
    parsed.error.issues.map((issue) => issue.path),
    sources,
  );
  const where = files.length === 0 ? '' : ` in ${files.join(' and ')}`;
  const message = `config for "${definition.name}"${where} does not match its configSchema:\n${issues}`;
  throw withDiagnosticCode('CONFIG_SCHEMA', new ConfigSchemaError(message, files[0]));
}
