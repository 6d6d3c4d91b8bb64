import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CommandHookAgent } from '../agent.js';
import { PLUGIN } from '../agents/antigravity.js';
import { byInstallOrder, isHermesHookCommand } from '../hook-command.js';
import { antigravityHooksProblem } from './antigravity-hooks-check.js';
import type { SettingsFormat } from './format.js';
import { readSettingsFile, writeSettingsFile } from './json-file.js';

type Json = Record<string, unknown>;
interface Group {
  matcher?: unknown;
  hooks?: Array<{ type?: unknown; command?: unknown; [key: string]: unknown }>;
  [key: string]: unknown;
}

/**
 * Antigravity's plugin (agents/antigravity.ts): a folder with `plugin.json` and, at its root,
 * `hooks.json`, whose top-level keys are hook names, each an object of events holding
 * `{matcher, hooks: [{type: "command", command, timeout}]}` groups. The settings file install
 * writes is that `hooks.json`; `plugin.json` is written next to it when missing and removed with
 * the plugin. Antigravity drops the whole file on one key it cannot parse, silently, so the file is
 * checked (antigravity-hooks-check.ts) before it is written, and one that does not pass as it is
 * found is an error: install does not add a hook to a file Antigravity would not load.
 */
export const antigravityPlugin: SettingsFormat = {
  hookCommands(file) {
    let settings: Json;
    try {
      settings = readSettingsFile(file).settings;
    } catch {
      return undefined;
    }
    if (!existsSync(file)) return undefined;
    const found: Array<{ event: string; command: string }> = [];
    for (const hook of Object.values(settings)) {
      if (!isObject(hook)) continue;
      for (const [event, groups] of Object.entries(hook)) {
        for (const group of Array.isArray(groups) ? (groups as Group[]) : []) {
          for (const handler of Array.isArray(group?.hooks) ? group.hooks : []) {
            if (typeof handler?.command === 'string')
              found.push({ event, command: handler.command });
          }
        }
      }
    }
    return found;
  },
  install(agent, { file, command, events }) {
    const read = readSettingsFile(file);
    const before = antigravityHooksProblem(read.settings);
    if (before !== undefined && existsSync(file))
      throw new Error(
        `${file}: Antigravity would not load this file (${before}); fix or move it first`,
      );
    const hook = isObject(read.settings[PLUGIN]) ? (read.settings[PLUGIN] as Json) : {};
    const added: string[] = [];
    const updated: string[] = [];
    for (const event of events) {
      const groups = Array.isArray(hook[event]) ? (hook[event] as Group[]) : [];
      const ours = groups.filter((group) => (group.hooks ?? []).some((h) => isOurs(h, agent)));
      const current = ours.length === 1 ? ours[0] : undefined;
      const handler = current?.hooks?.find((h) => isOurs(h, agent));
      if (
        current !== undefined &&
        current.hooks?.length === 1 &&
        agent.matchesAllTools(current.matcher) &&
        handler?.command === command
      )
        continue;
      // Ours go (one group of ours, for every tool, replaces them); a group left empty by that goes.
      const others = groups.flatMap((group) => {
        if (!(group.hooks ?? []).some((h) => isOurs(h, agent))) return [group];
        const left = (group.hooks ?? []).filter((h) => !isOurs(h, agent));
        return left.length > 0 ? [{ ...group, hooks: left }] : [];
      });
      hook[event] = [
        ...others,
        {
          matcher: agent.matchAllTools,
          hooks: [{ type: 'command', command, timeout: 30 }],
        },
      ];
      (ours.length > 0 ? updated : added).push(event);
    }
    if (added.length + updated.length === 0) return { added, updated };
    read.settings[PLUGIN] = hook;
    const problem = antigravityHooksProblem(read.settings);
    if (problem !== undefined)
      throw new Error(
        `${file}: the hooks hermes would write do not pass (${problem}); not written`,
      );
    writeSettingsFile(read);
    const manifest = join(dirname(file), 'plugin.json');
    if (!existsSync(manifest)) {
      mkdirSync(dirname(manifest), { recursive: true });
      writeFileSync(manifest, `${JSON.stringify(PLUGIN_MANIFEST, null, 2)}\n`);
    }
    return { added, updated };
  },
  uninstall(agent, file, events) {
    if (!existsSync(file)) return { removed: [] };
    const read = readSettingsFile(file);
    const removed: string[] = [];
    for (const [name, hook] of Object.entries(read.settings)) {
      if (!isObject(hook)) continue;
      for (const [event, groups] of Object.entries(hook)) {
        if (!Array.isArray(groups) || (events !== undefined && !events.includes(event))) continue;
        const kept = (groups as Group[])
          .map((group) => ({
            group,
            left: (group.hooks ?? []).filter((h) => !isOurs(h, agent)),
          }))
          .filter(({ group, left }) => left.length > 0 || (group.hooks ?? []).length === 0)
          .map(({ group, left }) => ({ ...group, hooks: left }));
        const before = (groups as Group[]).flatMap((g) => g.hooks ?? []).length;
        if (kept.flatMap((g) => g.hooks).length === before) continue;
        if (!removed.includes(event)) removed.push(event);
        if (kept.length > 0) (hook as Json)[event] = kept;
        else delete (hook as Json)[event];
      }
      if (Object.keys(hook).length === 0) delete read.settings[name];
    }
    if (removed.length === 0) return { removed };
    writeSettingsFile(read);
    // The plugin was hermes' alone: with no hook left, its manifest and folder go too.
    const manifest = join(dirname(file), 'plugin.json');
    if (!existsSync(file) && existsSync(manifest) && isOwnManifest(manifest)) {
      rmSync(manifest);
      try {
        rmdirSync(dirname(file)); // only when nothing else is in it
      } catch {}
    }
    return { removed: removed.sort(byInstallOrder(agent)) };
  },
};

/** What `plugin.json` says: the four fields Antigravity reads are name, description (and two more). */
const PLUGIN_MANIFEST = {
  name: PLUGIN,
  description:
    'Hermes extensions: every tool call of the agent is checked by the extensions of hermes-extensions before it runs',
};

function isOurs(handler: { command?: unknown }, agent: CommandHookAgent): boolean {
  return typeof handler?.command === 'string' && isHermesHookCommand(handler.command, agent);
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isOwnManifest(file: string): boolean {
  try {
    return (
      JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))) === JSON.stringify(PLUGIN_MANIFEST)
    );
  } catch {
    return false;
  }
}
