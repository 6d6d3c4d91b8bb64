import { join, resolve } from 'node:path';
import { expandHome } from '../config/locations.js';
import type { EffectiveSection, PathEntry } from '../config/merge.js';
import type { ExtensionsSection } from '../config/schema.js';
import { type DiscoveredExtension, discoverIn, discoverPath } from '../extensions/discovery.js';
import { isShippedSpec } from '../extensions/shipped.js';
import type { Diagnostic } from '../extensions/types.js';
import { DISK, type FileView } from '../fs/file-view.js';
import { insideRelative } from '../fs/paths.js';

/** Where load-runtime.ts looks for extensions, and what it is told of what it found. */
export interface DiscoveryPlace {
  /** The project root. */
  root: string;
  /** `$HERMES_HOME`. */
  home: string;
  /** The global config file, named in the refusal of a project `paths` entry outside the project. */
  globalFile: string;
  /** The project config read, if any: what it names is project code. */
  projectFile: string | undefined;
  /** The project as it was trusted, when its trusted state is held (held-state.ts), else the disk. */
  view: FileView;
  watch: (path: string) => void;
  diagnostics: Diagnostic[];
}

/**
 * The extensions found for a runtime, in three groups in load order: the global folder's, those
 * config `paths` name, and the project's `.hermes/extensions/` (empty when `project_local` is
 * false in `over`, the managed layer's section, or else in the merged one). What the project config
 * names must be inside the project, which its trust covers (a shipped extension's name excepted);
 * it is then project code, loaded under the project's guard.
 */
export function discoverExtensions(
  merged: EffectiveSection,
  over: ExtensionsSection,
  place: DiscoveryPlace,
): DiscoveredExtension[][] {
  const { root, home, globalFile, projectFile, view, watch, diagnostics } = place;
  const paths = merged.paths.filter((entry) => {
    // A shipped extension's name is the running framework's code, wherever that is installed.
    if (entry.file !== projectFile || isShippedSpec(entry.spec)) return true;
    if (isInsideProject(root, entry, view)) return true;
    diagnostics.push({
      code: 'PATH_OUTSIDE_PROJECT',
      severity: 'error',
      file: entry.file,
      message: `extensions.paths entry "${entry.spec}" in ${entry.file} is outside the project ${root}; refused: project config may only name code inside the project, which its trust covers. Name it in ${globalFile} instead if you trust it.`,
    });
    return false;
  });
  const groups: DiscoveredExtension[][] = [];
  const discover = ({ found, problems }: ReturnType<typeof discoverIn>) => {
    diagnostics.push(...problems);
    groups.push(found);
  };
  const globalExtensions = merged.globalDir ?? join(home, 'extensions');
  watch(globalExtensions);
  discover(discoverIn(globalExtensions, 'global'));
  const fromPaths = paths.map((entry) => {
    watch(resolve(entry.base, expandHome(entry.spec)));
    const found = discoverPath(entry, entry.file === projectFile ? view : DISK);
    for (const { location } of found.found) watch(location);
    // What the project config names is project code: loaded under the project's guard. Not a
    // shipped extension it names: that is the framework's (src/extensions/shipped.ts).
    if (entry.file !== projectFile) return found;
    const marked = found.found.map((f) =>
      f.source === 'shipped' ? f : { ...f, fromProject: true },
    );
    return { ...found, found: marked };
  });
  discover({
    found: fromPaths.flatMap((d) => d.found),
    problems: fromPaths.flatMap((d) => d.problems),
  });
  if ((over.project_local ?? merged.section.project_local) !== false) {
    const projectExtensions = join(root, '.hermes', 'extensions');
    watch(projectExtensions);
    discover(discoverIn(projectExtensions, 'project', view));
  } else groups.push([]);
  return groups;
}

function isInsideProject(root: string, entry: PathEntry, view: FileView): boolean {
  const named = resolve(entry.base, expandHome(entry.spec));
  // A bare package name is looked up through node_modules folders, some above the project.
  const where = discoverPath(entry, view).found[0]?.location ?? named;
  return insideRelative(root, where) !== undefined;
}

/**
 * Where the user's own extensions are: the global folder, what the `paths` of the user's config
 * name (a folder of extensions whole: one added there is loaded too) and where each was found
 * (a package's folder) — not what the project config names, which is project code, nor a shipped
 * extension's name, which is the package's. Each, changed, changes the user's guards everywhere.
 */
export function userCodeOf(
  globalDir: string,
  userPaths: readonly PathEntry[],
  fromPaths: readonly DiscoveredExtension[],
): string[] {
  // Named whether it exists or not: one missing now would be loaded the moment it appeared.
  const named = userPaths.flatMap(({ spec, base }) =>
    isShippedSpec(spec) ? [] : [resolve(base, expandHome(spec))],
  );
  const found = fromPaths.flatMap((f) =>
    f.fromProject === true || f.source === 'shipped' ? [] : [f.location],
  );
  return [...new Set([globalDir, ...named, ...found])];
}
