import { relative, resolve } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io, paint } from '../io.js';
import { auditLogPath } from './report-path.js';
import { readAuditLog } from './report-read.js';
import { type ShadowSummary, summarize } from './report-summary.js';
import { sinceOf } from './since-flag.js';
import { printable } from './trust/show-changes.js';

/** Reasons shown per extension in the table; `--json` has them all. */
const REASONS_SHOWN = 10;

/**
 * `hermes extensions report [--since ISO|DURATION] [--json] [--file PATH]`: what each extension in shadow
 * mode would have refused (docs/chain-semantics.md, Shadow mode), read from the audit log the
 * audit-log extension writes (its `path` from config, rotated files included), so a new guard can
 * be judged on real traffic before it is enforced. Every field of a line is the log's (a cloned
 * repository can commit one): each is printed through printable(), never raw.
 */
export async function reportCommand(
  context: CommandContext,
  options: { since?: string; json?: boolean; file?: string },
  io: Io,
) {
  const since = sinceOf(options.since);
  const path =
    options.file === undefined ? await auditLogPath(context) : resolve(context.cwd, options.file);
  const read = readAuditLog(path, since, options.file === undefined ? 'refuse' : 'follow');
  if (read.files.length === 0) {
    throw new CliError(
      `no audit log at ${printable(path)}: the report reads the hook decisions the audit-log extension writes. ` +
        'Enable it in $HERMES_HOME/config.yaml (or the project\'s .hermes/config.yaml): `extensions: { paths: ["hermes-extensions/audit-log"] }`, ' +
        `run the agent with a guard in shadow mode (\`mode: shadow\` in its config section), then \`${hermesCommand()} extensions report\` again` +
        (options.file === undefined ? ', or name the file with --file.' : '.'),
      1,
    );
  }
  const extensions = summarize(read.records);
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          files: read.files,
          ...(options.since === undefined
            ? {}
            : { since: new Date(since as number).toISOString() }),
          decisions: read.decisions,
          unreadable_lines: read.unreadable,
          extensions,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const where = read.files.map((f) => printable(relative(context.cwd, f) || f)).join(', ');
  const window = options.since === undefined ? '' : ` since ${printable(options.since)}`;
  io.out(`Shadow mode report: ${read.decisions} hook decision(s) in ${where}${window}.`);
  if (read.unreadable > 0) io.out(`${read.unreadable} line(s) that are not JSON were skipped.`);
  if (extensions.length === 0) {
    io.out(
      'No extension in shadow mode decided anything there. Put one in shadow mode with `mode: shadow` in its config section (docs/configuration.md).',
    );
    return 0;
  }
  for (const summary of extensions) {
    io.out('');
    for (const line of describe(io, summary)) io.out(line);
  }
  return 0;
}

function describe(io: Io, s: ShadowSummary): string[] {
  const did = [
    `would have blocked ${s.would_block}`,
    `asked ${s.would_ask}`,
    ...(s.would_change > 0 ? [`changed ${s.would_change}`] : []),
  ].join(', ');
  const lines = [
    `${paint(io, 'bold', printable(s.extension))}: ${did}`,
    `  first ${printable(s.first)}, last ${printable(s.last)}`,
    `  tools: ${s.tools.map((t) => `${printable(t.name)} (${t.count})`).join(', ')}`,
  ];
  if (s.reasons.length > 0) lines.push('  reasons:');
  for (const r of s.reasons.slice(0, REASONS_SHOWN)) {
    lines.push(`    ${r.count}× ${printable(r.action)}: ${printable(r.message)}`);
  }
  if (s.reasons.length > REASONS_SHOWN) {
    lines.push(`    … ${s.reasons.length - REASONS_SHOWN} more (--json lists them all)`);
  }
  return lines;
}
