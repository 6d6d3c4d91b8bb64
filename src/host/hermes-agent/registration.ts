import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The record's name in the plugin's folder (clients/hermes-agent-plugin/registration_record.py). */
export const REGISTRATION_RECORD = 'registered.json';

/**
 * What the plugin registered the last time the Hermes agent loaded it, as it recorded it then:
 * Hermes' version (from Hermes' own process: no program is run to learn it), the form (`middleware`
 * where it registered middleware, Hermes 0.17.0 and later; `hooks` otherwise), the hook names and
 * middleware kinds, and when.
 */
export interface HermesRegistration {
  hermesVersion: string | undefined;
  form: 'middleware' | 'hooks';
  hooks: string[];
  middleware: string[];
  recordedAt: string;
}

/**
 * The plugin's registration record in `pluginDir`, or why there is none to go by: not written
 * (Hermes has not loaded the plugin since it was installed: installing removes the folder, so a
 * record there is the installed plugin's), or of a shape this version does not read.
 */
export function readHermesRegistration(
  pluginDir: string,
): { registration: HermesRegistration } | { missing: string } {
  const file = join(pluginDir, REGISTRATION_RECORD);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      missing:
        code === 'ENOENT'
          ? 'Hermes has not loaded the plugin since it was installed'
          : `${file} cannot be read (${(error as Error).message})`,
    };
  }
  const record = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  const names = (value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? (value as string[])
      : undefined;
  const hooks = names(record.hooks);
  const middleware = names(record.middleware);
  if (
    record.schema !== 1 ||
    hooks === undefined ||
    middleware === undefined ||
    (record.form !== 'middleware' && record.form !== 'hooks') ||
    typeof record.recorded_at !== 'string'
  ) {
    return { missing: `${file} is not a record this version of hermes-extensions reads` };
  }
  return {
    registration: {
      hermesVersion: typeof record.hermes_version === 'string' ? record.hermes_version : undefined,
      form: record.form,
      hooks,
      middleware,
      recordedAt: record.recorded_at,
    },
  };
}
