import { join, resolve } from 'node:path';
import { hermesCommand } from '../command-name.js';
import { findProjectConfig } from '../config/find-project-config.js';
import { loadConfigFile, loadTrustedConfig } from '../config/load-config.js';
import {
  findProjectRoot,
  hermesHome,
  isFile,
  projectBundleDir,
  transpileCacheDir,
} from '../config/locations.js';
import { mergeConfigs } from '../config/merge.js';
import type { HermesConfig } from '../config/schema.js';
import { describeUnknownKey, findUnknownSections } from '../config/unknown-keys.js';
import { declaredCandidates } from '../declared/declarations.js';
import type { DiscoveredExtension } from '../extensions/discovery.js';
import { loadExtension } from '../extensions/load-extension.js';
import { byName } from '../extensions/order.js';
import type { Diagnostic, DiagnosticCode, ExtensionCandidate } from '../extensions/types.js';
import { DISK } from '../fs/file-view.js';
import { insideRelative } from '../fs/paths.js';
import { type Logger, stderrLogger } from '../log/logger.js';
import { moduleLoader } from '../modules/import-module.js';
import { type HeldState, heldNotice, heldStateOf } from '../trust/held-state.js';
import {
  cannotTrust,
  guardFor,
  type ProjectTrust,
  trustForRun,
  untrustedStanding,
} from '../trust/project-trust.js';
import { trustFile } from '../trust/store.js';
import { assembleRuntime } from './assemble.js';
import { discoverExtensions, userCodeOf } from './discover-extensions.js';
import {
  ignoredUnderManagedOnly,
  managedCandidates,
  managedConfigLayers,
  readManagedLayer,
  withoutManagedOnly,
} from './managed-layer.js';
import { withinManagedRules } from './managed-rules.js';
import { withoutGlobalDir } from './project-config-limits.js';
import type { Runtime } from './runtime.js';
import { withoutAuditSigningKey } from './user-only-settings.js';

export interface LoadRuntimeOptions {
  /** Where the agent works; the project root is found from here. Default: `process.cwd()`. */
  cwd?: string;
  /**
   * The project root, when the host has pinned it (a command-hook session's, session-root.ts):
   * not looked for from `cwd`, so no `.git` or `.hermes` below it moves it. Project config is
   * searched from `cwd` up to it; its extensions and trust are this folder's.
   */
  root?: string;
  /** `$HERMES_HOME`. Default: the environment's, else `~/.hermes`. */
  home?: string;
  /** Trust the project's code and config for this run (as `HERMES_TRUST_PROJECT=1` does). */
  trust?: boolean;
  logger?: Logger;
  /**
   * Warn about an extension whose load and setup take longer than this. Default 1000 ms, or
   * `HERMES_SLOW_LOAD_MS`.
   */
  slowLoadMs?: number;
  /**
   * How long each extension's module may take to load, and then its `setup`, before it is a load
   * failure. Default 10 000 ms. Setups run at the same time, so hanging ones cost about one
   * timeout together; modules load one after another.
   */
  setupTimeoutMs?: number;
  /**
   * Overrides config `extensions.on_load_error`, for tools that run the handlers to inspect them
   * (doctor's dry run must reach the handlers past the refusal of a broken setup).
   */
  onLoadError?: 'block' | 'warn';
  /**
   * Told each file and folder the runtime is built from, before it is read: the global config
   * (named even when it does not exist), the project config found, the trust record and the files
   * the project's trust covers, and every folder extensions are discovered in or loaded from. A
   * host that keeps the runtime checks them to know when it is stale. Where no project config
   * was found, the caller looks again itself (findProjectConfig). (The hook daemon records what
   * loading reads instead: src/host/daemon/read-recorder.ts.)
   */
  watch?: (path: string) => void;
}

/**
 * The runtime of an installation (docs/configuration.md, Where extensions and config come from): global config and extensions from
 * `$HERMES_HOME`, config `paths`, and the project's own config and `.hermes/extensions/` —
 * the project's only when it is trusted, so a cloned repository runs nothing and changes no
 * setting until its owner says so; once trusted, as trusted, so a change runs nothing and
 * changes no setting until its owner reviews it (src/trust/held-state.ts). Rejects only when a config file cannot be read or is invalid;
 * every extension-level failure is a diagnostic.
 */
export async function loadRuntime(options: LoadRuntimeOptions = {}): Promise<Runtime> {
  const home = hermesHome(options.home);
  const given = resolve(options.cwd ?? process.cwd());
  const root = options.root === undefined ? findProjectRoot(given, home) : resolve(options.root);
  // A folder outside the given root has no config of the project's: the search starts at the root.
  const cwd = insideRelative(root, given) === undefined ? root : given;
  const diagnostics: Diagnostic[] = [];
  const loader = moduleLoader(transpileCacheDir(home), projectBundleDir(home));

  const watch = options.watch ?? (() => {});
  // The organisation's layer first: what it manages, no layer below changes (managed-layer.ts).
  const managed = await readManagedLayer(loader, watch, diagnostics);
  const layers: Array<{ config: HermesConfig; file: string }> = [];
  const globalFile = join(home, 'config.yaml');
  watch(globalFile);
  if (isFile(globalFile))
    layers.push({ config: await loadConfigFile(globalFile, loader), file: globalFile });

  // Stamp, then read: a revocation landing between a read and a later stamp would go unseen. The
  // files the trust covers are known only from a read, so a watcher has them told, then read again.
  watch(trustFile(home));
  const trustOptions = { cwd, root, home, ...(options.trust ? { trust: true } : {}) };
  if (options.watch) for (const file of trustForRun(trustOptions).files) watch(file);
  const trust = trustForRun(trustOptions);
  for (const file of trust.files) watch(file);
  // Trusted once and changed since: what was trusted stays in force (held-state.ts). The project's
  // config and extensions are then found in the project as it was trusted, never as it is now.
  const hold = heldStateOf(trust, home);
  const inForce = trust.trusted || hold !== undefined;
  const view = hold?.view ?? DISK;
  // What project code may read while it loads: what was trusted (any file when trusted for one run).
  const guard = guardFor(
    root,
    home,
    trust.state === 'override' ? undefined : (hold?.files ?? trust.records),
  );
  const projectConfig = findProjectConfig(cwd, root, view);
  if (projectConfig) watch(projectConfig.file);
  if (projectConfig && inForce) {
    const config = hold
      ? await heldConfig(projectConfig.file, hold, loader, guard)
      : await loadConfigFile(projectConfig.file, loader, { project: guard });
    if (config) {
      layers.push({
        config: withoutAuditSigningKey(
          withoutGlobalDir(config, projectConfig.file, diagnostics),
          projectConfig.file,
          diagnostics,
        ),
        file: projectConfig.file,
      });
    }
  }
  // Coded UNTRUSTED, so hosts can tell the user their project's guards are not running.
  if (!inForce) diagnostics.push(untrustedNotice(trust));

  const lower = managed.only ? [] : layers.map((l) => withoutManagedOnly(l, managed, diagnostics));
  if (managed.only) ignoredUnderManagedOnly(managed, layers, diagnostics);
  for (const { config, file } of [...managedConfigLayers(managed), ...lower]) {
    for (const key of findUnknownSections(config, file)) {
      diagnostics.push({
        code: 'CONFIG_UNKNOWN_KEY',
        kind: 'unknown-config-key',
        severity: 'warning',
        file,
        message: describeUnknownKey(key, file),
      });
    }
  }
  const merged = mergeConfigs(lower);
  // What the managed config says of loading is not a lower layer's to change back.
  const over = managed.config?.extensions ?? {};
  const groups = discoverExtensions(merged, over, {
    root,
    home,
    globalFile,
    projectFile: projectConfig?.file,
    view,
    watch,
    diagnostics,
  });
  // Extensions declared in config (src/declared/) load with their layer's group: the user's with
  // the global ones, the project's (read only when in force) with the project's.
  const declared = await declaredCandidates(
    lower.map((layer) => ({ ...layer, project: layer.file === projectConfig?.file })),
    { root, view, guard },
  );
  diagnostics.push(...declared.diagnostics);
  const declaredIn = [declared.user, [], declared.project];

  const loadingEnabled = (over.enabled ?? merged.section.enabled) !== false;
  const candidates = await managedCandidates(managed, loader, watch, diagnostics);
  for (const [index, group] of groups.entries()) {
    const loaded: ExtensionCandidate[] = [...(declaredIn[index] ?? [])];
    for (const found of group) {
      if (managed.only) {
        loaded.push(
          held(found, 'disabled', `managed_only is set in ${managed.file}`, 'MANAGED_ONLY'),
        );
      } else if (found.source === 'project' && !inForce) {
        // Paths the project config names never get here untrusted: that config is not read then.
        loaded.push(held(found, 'untrusted', `project ${root} is not trusted`));
      } else if (!loadingEnabled) {
        loaded.push(held(found, 'disabled', 'extensions.enabled is false'));
      } else {
        const project = found.source === 'project' || found.fromProject === true;
        const candidate = await loadExtension(
          found,
          loader,
          project ? guard : undefined,
          options.setupTimeoutMs,
        );
        // Held project code that does not load is part of the trusted state that cannot be rebuilt.
        if (project && hold && candidate.loadError) hold.missing.push(candidate.loadError.message);
        loaded.push(candidate);
      }
    }
    // Within a source, load order (and so priority ties) goes by extension name
    // (`extensions/order.ts`).
    candidates.push(...loaded.sort(byName));
  }
  if (hold) diagnostics.push(heldNotice(trust, hold));
  // The guards the held state would run are not all known: nothing falls open, whatever
  // on_load_error the user chose for an extension of their own that breaks.
  const broken = hold !== undefined && hold.missing.length > 0;
  // What is managed is known now: the lower layers' config loses what would weaken it.
  const names = new Set(candidates.filter((c) => c.managed && !c.held).map((c) => c.name));
  const ruled = withinManagedRules(lower, {
    file: managed.file,
    section: managed.config?.extensions ?? {},
    names,
  });
  diagnostics.push(...ruled.diagnostics);
  const sources = [...managedConfigLayers(managed), ...ruled.layers];
  const { section } = mergeConfigs(sources);

  return assembleRuntime({
    candidates,
    section:
      options.onLoadError === undefined
        ? broken
          ? { ...section, on_load_error: 'block' }
          : section
        : { ...section, on_load_error: options.onLoadError },
    configSources: sources.map(({ config, file }) => ({
      section: config.extensions ?? {},
      file,
      where: file,
    })),
    projectRoot: root,
    userCode: userCodeOf(
      merged.globalDir ?? join(home, 'extensions'),
      merged.paths.filter((entry) => entry.file !== projectConfig?.file),
      groups[1] ?? [],
    ),
    logger: options.logger ?? stderrLogger,
    diagnostics,
    ...slowLoadOption(options.slowLoadMs),
    ...(options.setupTimeoutMs === undefined ? {} : { setupTimeoutMs: options.setupTimeoutMs }),
  });
}

function held(
  found: DiscoveredExtension,
  status: 'untrusted' | 'disabled',
  reason: string,
  code?: DiagnosticCode,
): ExtensionCandidate {
  return {
    name: found.label,
    source: found.source,
    path: found.location,
    held: { status, reason, ...(code === undefined ? {} : { code }) },
    loadMs: 0,
  };
}

function untrustedNotice(trust: ProjectTrust): Diagnostic {
  if (trust.state === 'unreadable') {
    return {
      code: 'UNTRUSTED',
      kind: 'untrusted-project',
      severity: 'error',
      file: trust.root,
      message: `project ${trust.root} is not trusted: ${cannotTrust(trust)}\nIts config and extensions are ignored until that is fixed and the project is trusted with \`${hermesCommand()} extensions trust\`.`,
    };
  }
  return {
    code: 'UNTRUSTED',
    kind: 'untrusted-project',
    severity: 'warning',
    file: trust.root,
    message: `project ${trust.root} ${untrustedStanding(trust)}: its config and its ${trust.files.length} file(s) of extension code are ignored. Review them, then run \`${hermesCommand()} extensions trust\` in the project, or set HERMES_TRUST_PROJECT=1 for one run.`,
  };
}

/**
 * The held project's config as trusted (load-config.ts, loadTrustedConfig), or undefined when it
 * cannot be rebuilt: what is missing is noted, and the load then refuses every tool call.
 */
async function heldConfig(
  file: string,
  held: HeldState,
  loader: ReturnType<typeof moduleLoader>,
  guard: ReturnType<typeof guardFor>,
): Promise<HermesConfig | undefined> {
  const noted = held.missing.length;
  try {
    return await loadTrustedConfig(file, () => held.view.read(file), loader, guard);
  } catch (error) {
    // A copy the view could not read is noted already.
    if (held.missing.length === noted) held.missing.push((error as Error).message ?? String(error));
    return undefined;
  }
}

/**
 * The slow-load warning's threshold: the option, else `HERMES_SLOW_LOAD_MS` (for a machine that
 * is slow or busy by nature, such as a loaded CI runner), else assembleRuntime's default.
 */
function slowLoadOption(given: number | undefined): { slowLoadMs?: number } {
  if (given !== undefined) return { slowLoadMs: given };
  const set = Number(process.env.HERMES_SLOW_LOAD_MS);
  return Number.isFinite(set) && set > 0 ? { slowLoadMs: set } : {};
}
