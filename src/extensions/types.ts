import type { HookName } from '../hooks/index.js';
import type { ExtensionDefinition } from './define.js';

/**
 * Where an extension came from: in memory (`createRuntime`), or a place on disk (README,
 * Extensions on disk); `shipped` is one of the framework's own, named `hermes-extensions/<name>`
 * in config `paths` (shipped.ts); `managed` the managed folder's `extensions/`
 * (src/config/managed-location.ts).
 */
export type ExtensionSource =
  | 'inline'
  | 'managed'
  | 'global'
  | 'path'
  | 'project'
  | 'package'
  | 'shipped';

export type ExtensionStatus = 'enabled' | 'disabled' | 'shadowed' | 'untrusted' | 'error';

export interface HookRegistrationInfo {
  hook: HookName;
  priority: number;
  /** Only for validators: they run after every other handler of the hook, on the final value. */
  phase?: 'validate';
  /** The tool matcher of an `intercept_tool_call` handler, as written (`/re/` for patterns). */
  tools?: string[];
  /** The handler runs only for events its `when` pattern matches. */
  when?: true;
  /** The extensions it runs before / after in its chain, as registered (order-by-name.ts). */
  before?: string[];
  after?: string[];
}

/** One discovered extension, whatever became of it. Only `enabled` ones have handlers. */
export interface ExtensionInfo {
  name: string;
  source: ExtensionSource;
  path?: string;
  version?: string;
  description?: string;
  status: ExtensionStatus;
  hooks: HookRegistrationInfo[];
  /** Time to load and set up, in milliseconds. */
  loadMs: number;
  /**
   * `shadow` when its config section says `mode: shadow`: its handlers decide, and the chain records
   * what they decided without applying it (docs/chain-semantics.md, Shadow mode). Not `shadowed`,
   * the status of an extension another of the same name replaced.
   */
  mode?: 'shadow';
  /**
   * Loaded by the managed layer (docs/teams.md, Managed policy): no lower layer may disable,
   * shadow, configure, reorder or replace it.
   */
  managed?: true;
  /** Why it is in `error` (or `disabled`, `shadowed`, `untrusted`). */
  reason?: string;
  /** The diagnostic code of `reason` when it is in `error`, `shadowed` or `untrusted`. */
  code?: DiagnosticCode;
}

/**
 * What a diagnostic is about, stable across releases so hosts and `doctor` can branch on it (the
 * message is for people and may be reworded). The README's "Diagnostic codes" lists them.
 */
export type DiagnosticCode =
  // Discovery: what the config names or a folder holds.
  | 'PATH_NOT_FOUND'
  | 'NO_ENTRY'
  | 'ENTRY_OUTSIDE_FOLDER'
  // Loading one extension's module.
  | 'LOAD_FAILED'
  | 'LOAD_TIMEOUT'
  | 'NO_DEFAULT_EXPORT'
  | 'NOT_AN_EXTENSION'
  // Its config and its setup.
  | 'CONFIG_SCHEMA'
  | 'UNKNOWN_HOOK'
  | 'UNKNOWN_EVENT'
  | 'INVALID_REGISTRATION'
  | 'SETUP_FAILED'
  | 'SETUP_TIMEOUT'
  | 'SLOW_LOAD'
  | 'SHADOWED'
  // Handler order by name (before / after).
  | 'ORDER_CYCLE'
  | 'ORDER_NOT_FOUND'
  | 'ORDER_ACROSS_PHASES'
  // Config files and trust.
  | 'CONFIG_UNKNOWN_KEY'
  | 'DISABLED_NOT_FOUND'
  | 'PATH_OUTSIDE_PROJECT'
  | 'GLOBAL_DIR_IN_PROJECT'
  | 'NO_SANDBOX_IN_PROJECT'
  | 'AUDIT_KEY_IN_PROJECT'
  | 'UNTRUSTED'
  | 'TRUST_HELD'
  // The managed layer (docs/teams.md).
  | 'MANAGED_OVERRIDE'
  | 'MANAGED_ONLY'
  | 'MANAGED_LOCATION';

export interface Diagnostic {
  code: DiagnosticCode;
  /**
   * @deprecated Read `code` (`UNTRUSTED`, `CONFIG_UNKNOWN_KEY`); `kind` is still set on those
   * two for one minor version and removed in 0.2.
   */
  kind?: 'untrusted-project' | 'unknown-config-key';
  severity: 'error' | 'warning' | 'info';
  extension?: string;
  file?: string;
  message: string;
}

/** An extension found by discovery (or handed over in memory), in load order. */
export interface ExtensionCandidate {
  name: string;
  source: ExtensionSource;
  path?: string;
  /** The folder the extension's files are in (`hermes.extensionDir`). */
  extensionDir?: string;
  /** Absent when the extension could not even be loaded; `loadError` says why. */
  definition?: ExtensionDefinition<unknown>;
  loadError?: { code: DiagnosticCode; message: string };
  /** Found but deliberately not loaded (untrusted project code, or loading switched off). */
  held?: { status: 'untrusted' | 'disabled'; reason: string; code?: DiagnosticCode };
  /** Loaded by the managed layer: it wins over any other of its name, and no lower layer changes it. */
  managed?: true;
  loadMs: number;
}
