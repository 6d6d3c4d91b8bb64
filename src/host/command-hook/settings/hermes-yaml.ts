import { existsSync, readFileSync, rmSync } from 'node:fs';
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { rewriteUserFile } from '../../../fs/user-file.js';
import type { CommandHookAgent } from '../agent.js';
import { byInstallOrder, isHermesHookCommand } from '../hook-command.js';
import type { SettingsFormat } from './format.js';

/**
 * How long Hermes lets the hook run, in seconds: longer than the hook's own deadline
 * (hook-deadline.ts, 25 s), so the hook answers a slow extension itself; Hermes' most is 300.
 */
const TIMEOUT_SECONDS = 30;

/** The events whose entry gets `fail_closed: true`: the only one where Hermes honours it. */
const FAILS_CLOSED: readonly string[] = ['pre_tool_call'];

/**
 * The Hermes agent's `config.yaml`: shell hooks under `hooks.<event>`, each a list of
 * `{ command, matcher?, timeout?, fail_closed? }`. The file holds the rest of Hermes' settings
 * (and this package's own `extensions:` section), so it is edited as a YAML document: comments,
 * key order and layout stay as the user wrote them, and only the hook entries change. Every entry
 * install writes has no matcher (every tool); the `pre_tool_call` one has `fail_closed: true` —
 * Hermes then blocks a tool call when the hook cannot start, times out or prints what is not
 * JSON. Hermes honours `fail_closed` at no other event, and the versions that read it warn at
 * every start of an entry that has it there (agent/shell_hooks.py, `_parse_single_entry`), so
 * install takes it off the others.
 */
export const hermesYaml: SettingsFormat = {
  hookCommands(file) {
    let hooks: YAMLMap | undefined;
    try {
      hooks = hooksOf(readDocument(file), file, false);
    } catch {
      return undefined;
    }
    if (hooks === undefined) return undefined;
    const found: Array<{ event: string; command: string }> = [];
    for (const pair of hooks.items) {
      const event = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (event === undefined || !isSeq(pair.value)) continue;
      for (const entry of pair.value.items) {
        const command = isMap(entry) ? entry.get('command') : undefined;
        if (typeof command === 'string') found.push({ event, command });
      }
    }
    return found;
  },

  install(agent, { file, command, events }) {
    const doc = readDocument(file);
    const hooks = hooksOf(doc, file, true) as YAMLMap;
    const added: string[] = [];
    const updated: string[] = [];
    for (const event of events) {
      let entries = hooks.get(event, true) as unknown;
      if (
        entries === undefined ||
        entries === null ||
        (isScalar(entries) && entries.value === null)
      ) {
        entries = doc.createNode([]);
        hooks.set(event, entries);
      }
      if (!isSeq(entries)) {
        const kind = isMap(entries) ? 'a mapping' : 'a single value';
        throw new Error(
          `${file}: hooks.${event} is ${kind}, not a list of { command, matcher?, timeout? } entries; hermes does not replace what it does not understand, so nothing was written: make it such a list (or move your entry aside), then install again`,
        );
      }
      const want: Record<string, unknown> = {
        command,
        timeout: TIMEOUT_SECONDS,
        ...(FAILS_CLOSED.includes(event) ? { fail_closed: true } : {}),
      };
      const ours = entries.items.filter((entry) => isOurs(entry, agent));
      if (ours.length === 0) {
        entries.add(doc.createNode(want));
        added.push(event);
        continue;
      }
      // One hermes hook per event; the first is brought up to date, the others go.
      const [kept, ...extra] = ours as YAMLMap[];
      let changed = extra.length > 0;
      for (const entry of extra) entries.items.splice(entries.items.indexOf(entry), 1);
      for (const [key, value] of Object.entries(want)) {
        if (kept?.get(key) !== value) {
          kept?.set(key, value);
          changed = true;
        }
      }
      // Under a matcher that leaves tools out, the guard would not see them.
      if (kept?.has('matcher') && !agent.matchesAllTools(kept.get('matcher'))) {
        kept.delete('matcher');
        changed = true;
      }
      // Hermes' other spelling (it takes either), and fail_closed where Hermes only warns of it.
      const unwanted = FAILS_CLOSED.includes(event)
        ? ['failClosed']
        : ['failClosed', 'fail_closed'];
      for (const key of unwanted) {
        if (kept?.has(key)) {
          kept.delete(key);
          changed = true;
        }
      }
      if (changed) updated.push(event);
    }
    if (added.length + updated.length > 0) writeDocument(file, doc);
    return { added, updated };
  },

  uninstall(agent, file, events) {
    if (!existsSync(file)) return { removed: [] };
    const doc = readDocument(file);
    const hooks = hooksOf(doc, file, false);
    if (hooks === undefined) return { removed: [] };
    const removed: string[] = [];
    for (const pair of [...hooks.items]) {
      const event = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (event === undefined || (events !== undefined && !events.includes(event))) continue;
      if (!isSeq(pair.value)) continue;
      const entries = pair.value as YAMLSeq;
      const kept = entries.items.filter((entry) => !isOurs(entry, agent));
      if (kept.length === entries.items.length) continue;
      removed.push(event);
      entries.items = kept;
      if (kept.length === 0) hooks.delete(pair.key);
    }
    if (removed.length === 0) return { removed };
    if (hooks.items.length === 0) doc.delete('hooks');
    writeDocument(file, doc);
    return { removed: removed.sort(byInstallOrder(agent)) };
  },
};

function isOurs(entry: unknown, agent: CommandHookAgent): boolean {
  if (!isMap(entry)) return false;
  const command = entry.get('command');
  return typeof command === 'string' && isHermesHookCommand(command, agent);
}

/** The file as a YAML document (none, or an empty one, is an empty mapping). */
function readDocument(file: string): Document {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new Error(
      `${file} is not valid YAML (${doc.errors[0]?.message.split('\n')[0]}); fix or move it first`,
    );
  }
  if (doc.contents === null) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  if (!isMap(doc.contents))
    throw new Error(`${file} does not hold a YAML mapping; fix or move it first`);
  return doc;
}

/** The document's `hooks` mapping, made when `create`; an error when it is something else. */
function hooksOf(doc: Document, file: string, create: boolean): YAMLMap | undefined {
  const hooks = doc.get('hooks', true) as unknown;
  if (hooks === undefined || hooks === null || (isScalar(hooks) && hooks.value === null)) {
    if (!create) return undefined;
    const made = doc.createNode({}) as YAMLMap;
    doc.set('hooks', made);
    return made;
  }
  if (!isMap(hooks)) throw new Error(`${file}: "hooks" is not a mapping; fix or move it first`);
  return hooks;
}

/** Writes the document back; one left with no setting at all is removed (the same meaning). */
function writeDocument(file: string, doc: Document): void {
  if (
    isMap(doc.contents) &&
    doc.contents.items.length === 0 &&
    !doc.commentBefore &&
    !doc.comment
  ) {
    rmSync(file, { force: true });
    return;
  }
  // One line per value (a hook's command is long), flow lists as the user wrote them; whole.
  rewriteUserFile(file, doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
}
