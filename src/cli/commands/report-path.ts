import { join, resolve } from 'node:path';
import { findProjectConfig } from '../../config/find-project-config.js';
import { loadConfigFile } from '../../config/load-config.js';
import {
  findProjectRoot,
  isFile,
  projectBundleDir,
  transpileCacheDir,
} from '../../config/locations.js';
import { mergeConfigs } from '../../config/merge.js';
import type { HermesConfig } from '../../config/schema.js';
import { moduleLoader } from '../../modules/import-module.js';
import { guardFor, trustForRun } from '../../trust/project-trust.js';
import type { CommandContext } from '../context.js';

/** extensions/audit-log's default `path`, relative to the project root. */
export const DEFAULT_AUDIT_PATH = '.hermes/audit/audit.jsonl';

/**
 * The audit log the agent writes here: the audit-log extension's `path` from the config the
 * runtime would read (the user's config, then the project's only when it is trusted, as
 * runtime/load-runtime.ts reads them), relative to the project root as the extension resolves it.
 * Nothing is loaded but config: reading a log needs no extension to run.
 */
export async function auditLogPath(context: CommandContext): Promise<string> {
  return (await auditLogSetting(context)).path;
}

/**
 * `auditLogPath`, and whether the config names the audit-log extension (in `paths`, by name or
 * a path ending in `audit-log`) and does not disable it: a reader with no log to read can then say
 * whether to turn it on or to wait for the agent's first decision.
 */
export async function auditLogSetting(
  context: CommandContext,
): Promise<{ path: string; on: boolean }> {
  const { cwd, home } = context;
  const root = findProjectRoot(cwd, home);
  const loader = moduleLoader(transpileCacheDir(home), projectBundleDir(home));
  const layers: Array<{ config: HermesConfig; file: string }> = [];
  const globalFile = join(home, 'config.yaml');
  if (isFile(globalFile)) {
    layers.push({ config: await loadConfigFile(globalFile, loader), file: globalFile });
  }
  const trust = trustForRun({ cwd, home });
  const projectConfig = findProjectConfig(cwd, root);
  if (projectConfig && trust.trusted) {
    const guard = guardFor(root, home, trust.state === 'override' ? undefined : trust.records);
    layers.push({
      config: await loadConfigFile(projectConfig.file, loader, { project: guard }),
      file: projectConfig.file,
    });
  }
  const { section, paths } = mergeConfigs(layers);
  const own = section['audit-log'] as { path?: unknown } | undefined;
  const path = typeof own?.path === 'string' && own.path !== '' ? own.path : DEFAULT_AUDIT_PATH;
  const on =
    section.enabled !== false &&
    !(section.disabled ?? []).includes('audit-log') &&
    paths.some(({ spec }) => /(^|[\\/])audit-log(\/index)?(\.[cm]?[jt]s)?\/?$/.test(spec));
  return { path: resolve(root, path), on };
}
