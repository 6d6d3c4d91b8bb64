import { match } from 'ts-pattern';
import { hermesCommand } from '../../../command-name.js';
import type { DiagnosticCode } from '../../../extensions/types.js';
import { HOOK_NAMES } from '../../../hooks/index.js';
import { OBSERVER_EVENTS } from '../../../observe/events.js';

/** A check's code and what doctor advises for it. */
export function advice(code: DiagnosticCode): { code: DiagnosticCode; fix: string } {
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
      () =>
        'fix the error in that file (run it through tsc or node to see it whole), or install what it says is missing',
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
        `correct the name in extensions.disabled (\`${hermesCommand()} extensions list\` names them) or remove it`,
    )
    .with(
      'PATH_OUTSIDE_PROJECT',
      () => 'name it in $HERMES_HOME/config.yaml instead, if you trust it',
    )
    .with(
      'GLOBAL_DIR_IN_PROJECT',
      () => "set global_dir in $HERMES_HOME/config.yaml, or remove it from the project's config",
    )
    .with(
      'NO_SANDBOX_IN_PROJECT',
      () => "set no_sandbox in $HERMES_HOME/config.yaml, or remove it from the project's config",
    )
    .with(
      'AUDIT_KEY_IN_PROJECT',
      () =>
        "set audit-log's signing_key in $HERMES_HOME/config.yaml, or remove it from the project's config",
    )
    .with('UNTRUSTED', () => `${hermesCommand()} extensions trust`)
    .with('TRUST_HELD', () => `review the change and trust it: ${hermesCommand()} extensions trust`)
    .with(
      'ORDER_CYCLE',
      () =>
        'remove the before/after that closes the cycle (one extension in it should not name the other), or use priorities',
    )
    .with(
      'ORDER_NOT_FOUND',
      () =>
        `correct the name in before/after (\`${hermesCommand()} extensions list\` names the extensions), or ignore this if it names an extension you do not run`,
    )
    .with(
      'ORDER_ACROSS_PHASES',
      () =>
        "remove the before/after: validators (phase: 'validate') always run after every mutator of the hook",
    )
    .with(
      'MANAGED_OVERRIDE',
      () =>
        'remove it from your config or extension: the managed config decides this, and your setting never applies (ask the admin to change the managed config)',
    )
    .with(
      'MANAGED_ONLY',
      () =>
        'nothing to do unless the admin allows your own extensions: the managed config sets managed_only, so only managed extensions run',
    )
    .with(
      'MANAGED_LOCATION',
      () =>
        'make the managed-location file a plain file owned by root, writable by root alone, in a folder owned by root and writable by root alone (or remove it)',
    )
    .exhaustive();
}

/**
 * Which check shows a diagnostic: its extension's own (above), the project trust check, or one of
 * its own (config and discovery problems, and config keys nothing reads, those inside an
 * extension's section too, each under the file to correct).
 */
export function shownBy(code: DiagnosticCode): 'extension' | 'trust' | 'itself' {
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
    .with('UNTRUSTED', 'TRUST_HELD', () => 'trust')
    .with(
      'PATH_NOT_FOUND',
      'NO_ENTRY',
      'ENTRY_OUTSIDE_FOLDER',
      'CONFIG_UNKNOWN_KEY',
      'DISABLED_NOT_FOUND',
      'PATH_OUTSIDE_PROJECT',
      'GLOBAL_DIR_IN_PROJECT',
      'NO_SANDBOX_IN_PROJECT',
      'AUDIT_KEY_IN_PROJECT',
      'ORDER_CYCLE',
      'ORDER_NOT_FOUND',
      'ORDER_ACROSS_PHASES',
      'MANAGED_OVERRIDE',
      'MANAGED_ONLY',
      'MANAGED_LOCATION',
      () => 'itself',
    )
    .exhaustive();
}
