import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveProjectPath, shellInvocationOf, writeTargetsOf } from 'hermes-extensions/policy';
import type { Refusal } from './check-tool.js';
import type { WorkflowGuardConfig } from './config.js';
import { linkCreations } from './patch-creations.js';
import { planNames } from './plan.js';
import { type Creation, shellCreations } from './shell-creations.js';
import { normalizeToolName, toolKinds } from './tool-kinds.js';

/** A refusal of this rule, with the new folders the plan must name (none when unclear). */
export interface ModuleRefusal extends Refusal {
  folders: string[];
}

/**
 * Judges tool calls made while a plan exists against `module_roots`: a call that creates a new
 * top-level folder under a module root (`src/payments` under `src/`) passes only when the plan
 * names that folder. Whether the folder exists is asked of the disk, by where the path really
 * leads and by its name; a path outside the project is not this rule's business. Writers and
 * shell tools whose effect cannot be read are refused (fail closed); tools known to only read
 * pass; other tools are judged by the paths their arguments name.
 */
export function moduleJudge(root: string, config: WorkflowGuardConfig) {
  const kindOf = toolKinds(config);
  const lexicalRoot = resolve(root);
  const realRoot = realRootOf(lexicalRoot);

  function judge(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    plan: string,
  ): ModuleRefusal | undefined {
    if (config.module_roots.length === 0) return undefined;
    const kind = kindOf(tool);
    if (kind === 'reader') return undefined;
    if (kind === 'shell') return judgeShell(args, plan);
    const targets = writeTargetsOf(args);
    if (kind === 'writer') {
      if (targets.unknown) return unclear(`${tool}: ${targets.unknown}`);
      if (targets.paths.length === 0) return unclear(`${tool} names no file it would write`);
    }
    const name = normalizeToolName(tool);
    const makesFolders = /dir|folder/.test(name);
    const moves = /move|rename|copy/.test(name) && targets.paths.some(isFolder);
    const creations: Creation[] = targets.paths.map((path) => ({
      path,
      folder: makesFolders || moves,
      by: tool,
    }));
    // A patch's paths land where the links it makes lead (patch-creations.ts).
    const linked = linkCreations(lexicalRoot, targets, tool);
    if (typeof linked === 'string') return unclear(`${tool}: ${linked}`);
    return unplanned([...creations, ...linked], plan);
  }

  function judgeShell(args: Readonly<Record<string, unknown>>, plan: string) {
    const invocation = shellInvocationOf(args);
    if (invocation.kind === 'unknown') return unclear(invocation.reason);
    for (const run of invocation.runs) {
      const found = shellCreations(run, {
        root: lexicalRoot,
        cwd: resolve(lexicalRoot, invocation.cwd ?? '.'),
        readOnly: config.shell_read_only,
        moduleRoots: config.module_roots,
      });
      if ('unclear' in found) {
        return unclear(`the guard cannot tell what the command creates: ${found.unclear}`);
      }
      const refusal = unplanned(found.creations, plan);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** The new module folders the creations make that the plan does not name. */
  function unplanned(creations: readonly Creation[], plan: string): ModuleRefusal | undefined {
    const folders: string[] = [];
    const by = new Set<string>();
    for (const creation of creations) {
      for (const folder of newFolders(creation)) {
        if (planNames(plan, folder) || folders.includes(folder)) continue;
        folders.push(folder);
        by.add(creation.by);
      }
    }
    if (folders.length === 0) return undefined;
    const roots = config.module_roots.filter((root) =>
      folders.some((folder) => folder.startsWith(`${root}/`)),
    );
    const who = by.size === 1 ? [...by][0] : 'the call';
    return {
      what: `${who} would create ${folders.length === 1 ? 'the new folder' : 'the new folders'} ${folders.join(', ')} under the module root ${roots.map((r) => `${r}/`).join(', ')}, and the plan at ${config.plan_path} does not name ${folders.length === 1 ? 'it' : 'them'}`,
      kind: 'violation',
      folders,
    };
  }

  /** The top-level folders under a module root a creation makes, both where it leads and by name. */
  function newFolders(creation: Creation): string[] {
    const found = new Set<string>();
    // A tool may read `\` as a separator (as on Windows): `src\x\a.ts` is judged as `src/x/a.ts`
    // too. A path ending in a separator names a folder.
    const spellings = new Set([creation.path, creation.path.replaceAll('\\', '/')]);
    for (const spelling of spellings) {
      const folder = creation.folder || /[/\\]$/.test(spelling);
      addNewFolders({ ...creation, path: spelling, folder }, found);
    }
    return [...found];
  }

  function addNewFolders(creation: Creation, found: Set<string>) {
    const path = resolveProjectPath(root, creation.path, creation.cwd);
    for (const [rel, base] of [
      [path.inProject, realRoot],
      [path.lexicalInProject, lexicalRoot],
    ] as const) {
      if (rel === undefined) continue;
      for (const moduleRoot of config.module_roots) {
        if (!rel.startsWith(`${moduleRoot}/`)) continue;
        const rest = rel.slice(moduleRoot.length + 1).split('/');
        const [segment = ''] = rest;
        // A file right in the module root (`src/index.ts`) is no module.
        if (segment === '' || (rest.length === 1 && !creation.folder)) continue;
        const folder = `${moduleRoot}/${segment}`;
        if (!exists(join(base, folder))) found.add(folder);
      }
    }
  }

  function isFolder(path: string): boolean {
    return statSync(resolve(lexicalRoot, path), { throwIfNoEntry: false })?.isDirectory() === true;
  }

  return judge;
}

function unclear(what: string): ModuleRefusal {
  return { what, kind: 'unclear', folders: [] };
}

/** Whether anything is at `path` (a link too); a path through a file is nothing. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function realRootOf(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}
