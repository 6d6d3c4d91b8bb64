import { relative, resolve } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io, paint } from '../io.js';
import { columnWidths, SEPARATOR, table, wrapText } from '../table.js';
import {
  DECISIONS,
  type Decision,
  filterEntries,
  type LogEntry,
  type LogSummary,
  logEntries,
  summarizeEntries,
} from './log-entries.js';
import { auditLogSetting } from './report-path.js';
import { readAuditEntries } from './report-read.js';
import { sinceOf } from './since-flag.js';
import { printable } from './trust/show-changes.js';

export interface LogOptions {
  session?: string;
  tool?: string;
  decision?: string;
  since?: string;
  limit?: string;
  json?: boolean;
  file?: string;
}

/** Entries the table shows without `--limit`: the newest. `--json` gives them all. */
const SHOWN = 50;
/** How the summary and the table say each decision. */
const SAID: Record<Decision, string> = {
  block: 'blocked',
  ask: 'asked',
  rewrite: 'rewritten',
  pass: 'allowed',
};
const STYLE = { block: 'red', ask: 'yellow', rewrite: 'yellow', pass: 'dim' } as const;
/** A session id is shown by its start: `--session` takes a start too. */
const SESSION_SHOWN = 8;

/**
 * `hermes extensions log`: what the guards did — every call blocked, asked about, rewritten or
 * let through, by which extension, per session and tool — read from the audit log the audit-log
 * extension writes (rotated files included), newest last. Every field of a line is the log's (a
 * cloned repository can commit one): each is printed through printable(), never raw.
 */
export async function logCommand(context: CommandContext, options: LogOptions, io: Io) {
  const decisions = decisionsOf(options.decision);
  const limit = limitOf(options.limit);
  const since = sinceOf(options.since);
  const setting =
    options.file === undefined
      ? await auditLogSetting(context)
      : { path: resolve(context.cwd, options.file), on: true };
  const read = readAuditEntries(setting.path, options.file === undefined ? 'refuse' : 'follow');
  if (read.files.length === 0) return noLog(setting, options, io);
  const matched = filterEntries(logEntries(read.entries), {
    ...(options.session === undefined ? {} : { session: options.session }),
    ...(options.tool === undefined ? {} : { tool: options.tool }),
    ...(decisions === undefined ? {} : { decisions }),
    ...(since === undefined ? {} : { since }),
  });
  const summary = summarizeEntries(matched);
  const keep = limit ?? (options.json ? matched.length : SHOWN);
  const shown = matched.slice(Math.max(0, matched.length - keep));
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          files: read.files,
          ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
          unreadable_lines: read.unreadable,
          matched: matched.length,
          summary: Object.fromEntries(
            DECISIONS.map((d) => [
              d,
              { count: summary[d].count, by: Object.fromEntries(summary[d].by) },
            ]),
          ),
          entries: shown,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const where = read.files.map((f) => printable(relative(context.cwd, f) || f)).join(', ');
  io.out(`Audit log ${where}: ${matched.length} decision(s)${filtersSaid(options)}.`);
  if (read.unreadable > 0) io.out(`${read.unreadable} line(s) that are not JSON were skipped.`);
  if (matched.length > shown.length) {
    io.out(`The newest ${shown.length} are shown; --limit N shows more, --json all.`);
  }
  if (shown.length > 0) {
    io.out('');
    for (const line of entryTable(io, shown)) io.out(line);
  }
  io.out('');
  for (const line of summaryLines(io, summary)) io.out(line);
  return 0;
}

/** No file at the path: the extension is off, or on and has written nothing yet. */
function noLog(setting: { path: string; on: boolean }, options: LogOptions, io: Io): number {
  const at = printable(setting.path);
  if (setting.on) {
    const said = `audit-log is on here and has written nothing yet at ${at}: it writes a line when a guard decides on an agent's call. Run the agent, then \`${hermesCommand()} extensions log\` again.`;
    if (options.json) io.out(JSON.stringify({ files: [], matched: 0, entries: [] }, null, 2));
    else io.out(said);
    return 0;
  }
  throw new CliError(
    options.file === undefined
      ? `no audit log at ${at}: the audit-log extension, which writes it, is not on here. Turn it on in $HERMES_HOME/config.yaml (or the project's .hermes/config.yaml): \`extensions: { paths: [hermes-extensions/audit-log] }\`, and set its \`audit-log: { path, max_bytes, keep }\` there if you like (docs/observing.md, The audit trail); then run the agent and \`${hermesCommand()} extensions log\` again, or name a log with --file.`
      : `no audit log at ${at}: name the file the audit-log extension writes (its \`path\`, .hermes/audit/audit.jsonl by default).`,
    1,
  );
}

/** The entries as a table: time, session, tool (or the hook), decision, who, why. */
function entryTable(io: Io, entries: readonly LogEntry[]): string[] {
  const head = ['TIME', 'SESSION', 'TOOL', 'DECISION', 'BY'];
  const rows = entries.map((e) => [
    printable(e.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
    printable(shortSession(e)),
    printable(e.tool ?? `(${e.hook})`),
    paint(io, STYLE[e.decision], e.decision),
    printable(e.by.join(', ') || '-'),
  ]);
  // The last column takes what is left of the terminal, at least enough to read.
  const used = columnWidths([head, ...rows]).reduce((sum, w) => sum + w + SEPARATOR.length, 0);
  const room = Math.max(30, (io.columns ?? 80) - used);
  const cells = [
    [...head, 'WHY'],
    ...rows.map((row, i) => [
      ...row,
      wrapText(printable(why(entries[i] as LogEntry)), room).join('\n'),
    ]),
  ];
  // Colours take no room in the layout (table.ts, visibleLength).
  return table(cells).map((line, i) => (i === 0 ? paint(io, 'bold', line) : line));
}

function shortSession(e: LogEntry): string {
  const session = e.session === '' ? '-' : e.session;
  const shown =
    session.length > SESSION_SHOWN + 1 ? `${session.slice(0, SESSION_SHOWN)}…` : session;
  return e.agent === undefined ? shown : `${shown} (${e.agent.slice(0, SESSION_SHOWN)})`;
}

/** What a hook's rewrite changed, as the WHY column says it. */
const CHANGED: Record<string, string> = {
  intercept_tool_call: 'the call',
  transform_tool_result: 'the result',
  before_llm_call: 'the model request',
  transform_user_input: 'the prompt',
};

/**
 * What the WHY column says: the reason (its first sentence, without the `Blocked by NAME:` the BY
 * column says already; `--json` has it whole), the answer, what changed, what shadow mode saw.
 */
function why(e: LogEntry): string {
  const parts: string[] = [];
  const answered = e.answer === undefined ? '' : ` (answered: ${e.answer})`;
  if (e.message !== undefined || e.answer !== undefined) {
    parts.push(
      `${e.message === undefined ? '' : firstSentence(e.message, e.by)}${answered}`.trim(),
    );
  }
  if (e.actions !== undefined && e.actions.length > 0) {
    parts.push(`${e.actions.join(', ')} of ${CHANGED[e.hook] ?? e.hook}`);
  }
  if (e.status !== undefined) parts.push(`ran (${e.status})`);
  for (const s of e.shadow ?? []) {
    const reason = s.message === undefined ? '' : `: ${s.message}`;
    parts.push(`shadow mode: ${s.extension} would ${s.action}${reason}`);
  }
  if (e.failed !== undefined) parts.push(`failed, passed over: ${e.failed.join(', ')}`);
  return parts.join('; ');
}

function firstSentence(message: string, by: readonly string[]): string {
  const [who] = by;
  const own = who !== undefined && message.startsWith(`Blocked by ${who}: `);
  const reason = own ? message.slice(`Blocked by ${who}: `.length) : message;
  const end = /[.!?](?=\s+\S)/.exec(reason.slice(20));
  return end === null ? reason : `${reason.slice(0, 20 + end.index + 1)} …`;
}

/** One line per decision kind: how many, and by whom. */
function summaryLines(io: Io, summary: LogSummary): string[] {
  return table(
    DECISIONS.map((d) => [
      paint(io, STYLE[d], SAID[d]),
      String(summary[d].count),
      summary[d].by.map(([who, n]) => `${printable(who)} ${n}`).join(', '),
    ]),
  );
}

function filtersSaid(options: LogOptions): string {
  const said = [
    options.session === undefined ? '' : `session ${options.session}`,
    options.tool === undefined ? '' : `tool ${options.tool}`,
    options.decision === undefined ? '' : `decision ${options.decision}`,
    options.since === undefined ? '' : `since ${options.since}`,
  ].filter((s) => s !== '');
  return said.length === 0 ? '' : ` (${printable(said.join(', '))})`;
}

/** `--decision block,ask`: each one of DECISIONS; anything else refused. */
function decisionsOf(given: string | undefined): Set<Decision> | undefined {
  if (given === undefined) return undefined;
  const names = given.split(',').map((d) => d.trim());
  const wrong = names.filter((d) => !(DECISIONS as readonly string[]).includes(d));
  if (wrong.length > 0 || names.length === 0) {
    throw new CliError(
      `--decision takes ${DECISIONS.join(', ')} (several with commas); got ${JSON.stringify(given)}`,
      2,
    );
  }
  return new Set(names as Decision[]);
}

function limitOf(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  if (!/^\d+$/.test(given) || Number(given) < 1) {
    throw new CliError(
      `--limit takes a whole number of entries, 1 or more; got ${JSON.stringify(given)}`,
      2,
    );
  }
  return Number(given);
}
