import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ProtectedGround } from '../protected/ground.js';
import { COMMAND_KEYS } from '../shell/invocation.js';
import { sandboxAvailability } from './availability.js';
import { filterName } from './network-filter.js';
import { shellWord, unquoteShellWord } from './quote.js';
import { privateTmpDirOf, protectedPaths, readDenials } from './settings.js';
import { PRELUDE_START, sandboxCommandWith, sandboxLine, scriptCommandOf } from './wrap.js';

/** `'<node>' '<cli>' --settings '<file>' -c '<script>'`, each word as `shellWord` quotes it. */
const WORD = `'(?:[^']|'\\\\'')*'`;
const LINE = new RegExp(`^(${WORD}) (${WORD}) --settings (${WORD}) -c (${WORD})$`, 's');
const SETTINGS_NAME = /^srt-([0-9a-f]{32})\.json$/;

/**
 * Whether `line` runs in workflow-guard's OS sandbox (wrap.ts) with protected ground read-only,
 * whatever else its settings allow: the protected-ground rule needs no sandbox of its own around
 * it (and one could not start inside it). The line must be exactly one `sandboxCommand` makes;
 * its settings file must be in `$HERMES_HOME/sandbox` (protected ground, read-only in every
 * sandbox), named by the digest of its bytes, and deny writes to every protected place of this
 * project (settings.ts), and deny reading every path of `denyRead` (a settings file left from
 * before secrets-guard was on does not). Nothing is taken on a pattern: the line is made again
 * from its parts.
 */
export function heldBySandbox(
  line: string,
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): boolean {
  if (line.includes(' --unshare-net ')) {
    return bwrapLineCommandOf(line, ground, denyRead) !== undefined;
  }
  if (!line.includes(' --settings ')) return false;
  const availability = sandboxAvailability();
  if (!availability.available) return false;
  const match = LINE.exec(line);
  if (match === null) return false;
  const file = unquoteShellWord(match[3] as string);
  const script = unquoteShellWord(match[4] as string);
  if (file === undefined || script === undefined) return false;
  const name = SETTINGS_NAME.exec(basename(file));
  if (name === null || dirname(file) !== join(ground.hermesHome, 'sandbox')) return false;
  let text: string;
  let root: string;
  try {
    text = readFileSync(file, 'utf8');
    root = realpathSync(ground.root);
  } catch {
    return false;
  }
  if (createHash('sha256').update(text).digest('hex').slice(0, 32) !== name[1]) return false;
  if (!listsAll(text, 'denyWrite', protectedPaths(root))) return false;
  if (!listsAll(text, 'denyRead', readDenials(root, denyRead))) return false;
  const tmpDir = privateTmpDirOf(root);
  const prelude = `${PRELUDE_START}${shellWord(tmpDir)}\n`;
  if (!script.startsWith(prelude)) return false;
  const command = script.slice(prelude.length);
  return sandboxLine(availability, file, tmpDir, command) === line;
}

function listsAll(text: string, key: 'denyWrite' | 'denyRead', paths: readonly string[]): boolean {
  try {
    const settings = JSON.parse(text) as { filesystem?: Record<string, unknown> };
    const denied = settings.filesystem?.[key];
    if (!Array.isArray(denied)) return false;
    const set = new Set(denied);
    return paths.every((path) => set.has(path));
  } catch {
    return false;
  }
}

/**
 * The command in workflow-guard's own bubblewrap line (bwrap-line.ts), when the line holds as
 * `heldBySandbox` says, else undefined (secrets-guard judges what runs inside, as the masks on
 * the line name the secret files to hide them). The writable folders and the
 * masked paths are read off the line, every existing path of `denyRead` must lie under a mask,
 * and the line made again from them (for this project, with the settings folder of this ground)
 * must be this one, byte for byte; protected ground inside a writable folder is then read-only,
 * as that line holds it.
 */
export function bwrapLineCommandOf(
  line: string,
  ground: ProtectedGround,
  denyRead: readonly string[],
): string | undefined {
  if (!line.includes(' --unshare-net ')) return undefined;
  const command = scriptCommandOf(line);
  const at = line.indexOf(" -c '");
  if (command === undefined || at < 0) return undefined;
  const head = line.slice(0, at);
  let root: string;
  try {
    root = realpathSync(ground.root);
  } catch {
    return undefined;
  }
  const tmpDir = privateTmpDirOf(root);
  const pairs = (pattern: RegExp) =>
    [...head.matchAll(pattern)].flatMap((match) => {
      const first = unquoteShellWord(match[1] as string);
      const second = match[2] === undefined ? first : unquoteShellWord(match[2]);
      return first !== undefined && first === second ? [first] : [];
    });
  // Once each: a line with a domain allowed names its mounts in both of its layers.
  const writable = [...new Set(pairs(new RegExp(` --bind (${WORD}) (${WORD})`, 'g')))].filter(
    (path) => path !== tmpDir,
  );
  const masks = [
    ...new Set([
      ...pairs(new RegExp(` --ro-bind /dev/null (${WORD})`, 'g')),
      ...pairs(new RegExp(` --tmpfs (${WORD}) --remount-ro (${WORD})`, 'g')),
    ]),
  ];
  const stateDir = join(ground.hermesHome, 'sandbox');
  const network = filterDomainsOf(head, stateDir);
  if (network === undefined) return undefined;
  for (const given of denyRead) {
    let real: string;
    try {
      real = realpathSync(resolve(root, given));
    } catch {
      continue;
    }
    if (!masks.some((mask) => real === mask || real.startsWith(`${mask}/`))) return undefined;
  }
  const again = sandboxCommandWith(
    command,
    { root, writable, denyRead: masks, network, stateDir },
    network.length > 0,
  );
  return again.kind === 'sandboxed' && again.command === line ? command : undefined;
}

/**
 * The domains of the hook daemon's filter a line points at (none: no filter named), read from
 * the file in the state folder that names them, whose digest names the filter; undefined when
 * the line names something else there.
 */
function filterDomainsOf(head: string, stateDir: string): string[] | undefined {
  const named = new RegExp(` -p ${WORD} (${WORD})(?: |$)`).exec(head);
  if (named === null) return [];
  const dir = unquoteShellWord(named[1] as string);
  if (dir === undefined || dirname(dir) !== stateDir) return undefined;
  try {
    const domains: unknown = JSON.parse(readFileSync(`${dir}.json`, 'utf8'));
    if (!Array.isArray(domains) || !domains.every((domain) => typeof domain === 'string')) {
      return undefined;
    }
    return domains.length > 0 && filterName(domains) === basename(dir) ? domains : undefined;
  } catch {
    return undefined;
  }
}

/** A shell call whose command is workflow-guard's own bubblewrap line, with the command inside it instead. */
export function bwrapSandboxedCallOf(
  args: Readonly<Record<string, unknown>>,
  ground: ProtectedGround,
  denyRead: readonly string[],
): Record<string, unknown> | undefined {
  const key = COMMAND_KEYS.find((name) => typeof args[name] === 'string');
  if (key === undefined) return undefined;
  const command = bwrapLineCommandOf(args[key] as string, ground, denyRead);
  return command === undefined ? undefined : { ...args, [key]: command };
}
