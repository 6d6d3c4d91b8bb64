import type { ExtensionDefinition } from '../extensions/define.js';
import type { HookName } from '../hooks/index.js';

/**
 * Where an extension came from: in memory (`createRuntime`), or a place on disk (README,
 * Extensions on disk).
 */
export type ExtensionSource = 'inline' | 'global' | 'path' | 'project' | 'package';

export type ExtensionStatus = 'enabled' | 'disabled' | 'shadowed' | 'untrusted' | 'error';

export interface HookRegistrationInfo {
  hook: HookName;
  priority: number;
  /** Only for validators: they run after every other handler of the hook, on the final value. */
  phase?: 'validate';
  /** The tool matcher of an `intercept_tool_call` handler, as written (`/re/` for patterns). */
  tools?: string[];
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
  /** Why it is in `error` (or `disabled`, `shadowed`, `untrusted`). */
  reason?: string;
}

export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  /**
   * `untrusted-project`: the notice that the project's code and config are not running because it
   * is not trusted. `unknown-config-key`: a config key nothing reads (most likely a typo), with
   * the file it is in (when it came from one) and its key path.
   */
  kind?: 'untrusted-project' | 'unknown-config-key';
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
  loadError?: string;
  /** Found but deliberately not loaded (untrusted project code, or loading switched off). */
  held?: { status: 'untrusted' | 'disabled'; reason: string };
  loadMs: number;
}
