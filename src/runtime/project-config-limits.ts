import type { HermesConfig } from '../config/schema.js';
import type { Diagnostic } from '../extensions/types.js';

/*
 * What only the user's own config may set, taken out of a project's config with an error that
 * says so (docs/configuration.md, The `extensions` section).
 */

/**
 * `global_dir` names the folder whose extensions load natively, unguarded, as the user's own: a
 * project config may not move it (into the project, it would run code its trust does not cover).
 */
export function withoutGlobalDir(
  config: HermesConfig,
  file: string,
  diagnostics: Diagnostic[],
): HermesConfig {
  const section = config.extensions;
  if (section?.global_dir === undefined) return withoutNoSandbox(config, file, diagnostics);
  diagnostics.push({
    code: 'GLOBAL_DIR_IN_PROJECT',
    severity: 'error',
    file,
    message: `extensions.global_dir in ${file} is ignored: only the user's own config ($HERMES_HOME/config.yaml) may set where global extensions live.`,
  });
  const { global_dir: _ignored, ...rest } = section;
  return withoutNoSandbox({ ...config, extensions: rest }, file, diagnostics);
}

/**
 * `no_sandbox: run` lets commands that could change protected ground run unsandboxed where no
 * sandbox can: the user's own risk to take, never a project's (docs/trust.md, Protected ground).
 */
function withoutNoSandbox(
  config: HermesConfig,
  file: string,
  diagnostics: Diagnostic[],
): HermesConfig {
  const section = config.extensions;
  if (section?.no_sandbox === undefined) return config;
  diagnostics.push({
    code: 'NO_SANDBOX_IN_PROJECT',
    severity: 'error',
    file,
    message: `extensions.no_sandbox in ${file} is ignored: only the user's own config ($HERMES_HOME/config.yaml) may accept running commands unsandboxed.`,
  });
  const { no_sandbox: _ignored, ...rest } = section;
  return { ...config, extensions: rest };
}
