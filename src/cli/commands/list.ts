import { hermesCommand } from '../../command-name.js';
import { pauseWords } from '../../config/pause.js';
import type { ExtensionInfo } from '../../extensions/types.js';
import { indentedMessage } from '../../log/message-lines.js';
import { sinceTrusted } from '../../trust/held-state.js';
import { cannotTrust, trustForRun, untrustedStanding } from '../../trust/project-trust.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { cwdFlag } from '../cwd-flag.js';
import { type Io, paint } from '../io.js';
import { advice, shownBy } from './doctor/advice.js';
import { pauseInForce } from './doctor/pause.js';
import type { HookLabel } from './list/hook-labels.js';
import { type ListRow, layOut } from './list/layout.js';
import { readableTools } from './list/tool-patterns.js';

/** `hermes extensions list [--json]`: every discovered extension and what it hooks. */
export async function listCommand(context: CommandContext, options: { json?: boolean }, io: Io) {
  const { runtime } = await loadForCommand(context);
  // Only what loaded is shown: the extensions can let go of what they hold at once.
  await runtime.close();
  if (options.json) {
    io.out(JSON.stringify(runtime.extensions, null, 2));
    return 0;
  }
  // First: while paused, no row below decides anything (src/runtime/pause-switch.ts).
  const paused = pauseInForce();
  if (paused !== undefined) {
    io.out(
      `${paint(io, 'red', 'PAUSED')}: every tool call of every agent is refused: ${pauseWords(paused)}. Lift it with: ${hermesCommand()} extensions resume --all`,
    );
    io.out('');
  }
  if (runtime.extensions.length === 0) {
    io.out(
      `No extensions found (looked in ${context.home}/extensions, config paths, and the project's .hermes/extensions).`,
    );
  } else {
    const rows = runtime.extensions.map(
      (ext): ListRow => ({
        cells: [
          ext.name,
          statusWord(io, ext) + modeWord(io, ext) + managedWord(io, ext),
          ext.source,
          ext.version ?? '-',
        ],
        hooks: describeHooks(ext),
        about: about(ext),
      }),
    );
    for (const line of layOut(rows, io.columns ?? 80)) io.out(line);
  }
  // What no row shows — a configured path that does not exist, a config key nobody reads — is
  // said under the table, as doctor says it (with its fix), so no guard goes missing unseen.
  const loose = runtime.diagnostics.filter((d) => shownBy(d.code) === 'itself');
  if (loose.length > 0) io.out('');
  for (const d of loose) {
    const label =
      d.severity === 'error'
        ? paint(io, 'red', 'error')
        : d.severity === 'info'
          ? paint(io, 'dim', 'info')
          : paint(io, 'yellow', 'warning');
    const where = d.file === undefined || d.message.includes(d.file) ? '' : ` (${d.file})`;
    io.out(`${label}: ${indentedMessage(d.message, '  ')}${where}`);
    io.out(`    fix: ${advice(d.code).fix}`);
  }
  const trust = trustForRun({ cwd: context.cwd, home: context.home });
  const held = runtime.diagnostics.find((d) => d.code === 'TRUST_HELD');
  if (held !== undefined) {
    // Trusted once and changed since (src/trust/held-state.ts): what runs is what was trusted.
    io.out('');
    io.out(
      held.severity === 'error'
        ? `Project ${trust.root} ${sinceTrusted(trust)}. The config and extensions trusted then cannot be rebuilt, so every tool call is refused:\n  ${held.message}`
        : `Project ${trust.root} ${sinceTrusted(trust)}. The config and extensions trusted then are in force (held): the change does nothing until you trust it.`,
    );
    io.out(
      `Review the change, then trust it with: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
    );
  } else if (trust.state === 'override') {
    io.out('');
    io.out(
      `Project ${trust.root} is not trusted, but HERMES_TRUST_PROJECT=1 trusts it for this run: its extensions and config are loaded.`,
    );
    io.out(
      `To trust it for good, review its ${trust.files.length} file(s), then: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
    );
  } else if (!trust.trusted) {
    io.out('');
    if (trust.state === 'unreadable') {
      io.out(`Project ${trust.root} is not trusted: ${cannotTrust(trust)}`);
    } else {
      io.out(
        `Project ${trust.root} ${untrustedStanding(trust)}: its extensions and config are ignored.`,
      );
      io.out(
        `Review its ${trust.files.length} file(s), then trust it with: ${hermesCommand()} extensions trust${cwdFlag(trust.root)}`,
      );
    }
  }
  return 0;
}

function describeHooks(ext: ExtensionInfo): HookLabel[] {
  return ext.hooks.map((h) => ({
    head: `${h.hook}@${h.priority}${h.phase ? `:${h.phase}` : ''}`,
    ...(h.tools ? readableTools(h.tools) : {}),
    when: Boolean(h.when),
    ...(h.before?.length ? { before: h.before } : {}),
    ...(h.after?.length ? { after: h.after } : {}),
  }));
}

/** The longest line and the most lines of a reason the table shows; `doctor` shows all of it. */
const MAX_REASON = 300;
const MAX_REASON_LINES = 8;

/**
 * What the table says about an extension: why it failed, else its description. A reason of
 * several problems keeps each on a line of its own (indentedMessage).
 */
function about(ext: ExtensionInfo): string {
  if (ext.status !== 'error') return ext.description ?? '';
  return indentedMessage(ext.reason ?? 'failed to load', '  ', MAX_REASON_LINES)
    .split('\n')
    .map((line) => (line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line))
    .join('\n');
}

/** An extension in shadow mode says so beside its status: its blocks are not enforced. */
function modeWord(io: Io, ext: ExtensionInfo): string {
  return ext.mode === 'shadow' ? ` ${paint(io, 'yellow', '(shadow mode)')}` : '';
}

/** A managed extension says so: no config of the user's or the project's changes it (docs/teams.md). */
function managedWord(io: Io, ext: ExtensionInfo): string {
  return ext.managed ? ` ${paint(io, 'bold', '(managed)')}` : '';
}

function statusWord(io: Io, ext: ExtensionInfo): string {
  switch (ext.status) {
    case 'enabled':
      return paint(io, 'green', 'enabled');
    case 'error':
      return paint(io, 'red', 'error');
    case 'untrusted':
      return paint(io, 'yellow', 'untrusted');
    default:
      return paint(io, 'dim', ext.status);
  }
}
