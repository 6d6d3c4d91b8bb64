import type { HermesConfig } from '../config/schema.js';
import type { Diagnostic } from '../extensions/types.js';

/**
 * A project's config without the audit-log extension's `signing_key` (docs/teams.md, Evidence):
 * a key a project names is a key the project holds, and lines it signs prove nothing. Only the
 * user's own (or the managed) config may name the key the trail is signed with.
 */
export function withoutAuditSigningKey(
  config: HermesConfig,
  file: string,
  diagnostics: Diagnostic[],
): HermesConfig {
  const section = config.extensions;
  const own = section?.['audit-log'];
  if (section === undefined || own === null || typeof own !== 'object') return config;
  if (!('signing_key' in own)) return config;
  diagnostics.push({
    code: 'AUDIT_KEY_IN_PROJECT',
    severity: 'error',
    file,
    message: `extensions.audit-log.signing_key in ${file} is ignored: only the user's own config ($HERMES_HOME/config.yaml) may name the key the audit log is signed with.`,
  });
  const { signing_key: _ignored, ...rest } = own as Record<string, unknown>;
  return { ...config, extensions: { ...section, 'audit-log': rest } };
}
