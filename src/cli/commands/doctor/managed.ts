import { statSync } from 'node:fs';
import { isDir } from '../../../config/locations.js';
import type { ExtensionInfo } from '../../../extensions/types.js';
import { managedConfigFile, managedLocation } from '../../../policy/protected/managed-location.js';
import type { Check } from './check.js';

/**
 * The managed layer as this machine has it (docs/teams.md, Managed policy): where it is, what it
 * manages, and whether someone other than root could change it. Nothing when there is none.
 */
export function managedChecks(extensions: readonly ExtensionInfo[]): Check[] {
  const location = managedLocation();
  if (!isDir(location.dir)) return [];
  const names = extensions.filter((e) => e.managed && e.status === 'enabled').map((e) => e.name);
  const how = location.from === 'package' ? 'named by the installed package' : location.from;
  const checks: Check[] = [
    {
      level: 'ok',
      subject: 'managed',
      message: `${location.dir} (${how}): ${names.length} managed extension(s)${names.length > 0 ? `: ${names.join(', ')}` : ''}; no config of the user's or the project's changes them`,
    },
  ];
  for (const path of [location.dir, managedConfigFile(location)]) {
    const loose = writableBeyondRoot(path);
    if (loose === undefined) continue;
    checks.push({
      level: 'warning',
      subject: path,
      message: `${loose}: the managed policy is only as fixed as its files`,
      fix: 'chown root and chmod go-w the managed folder and its files',
    });
  }
  return checks;
}

function writableBeyondRoot(path: string): string | undefined {
  try {
    const stats = statSync(path);
    if (stats.uid !== 0) return `owned by uid ${stats.uid}, not root`;
    if ((stats.mode & 0o022) !== 0) return 'writable by its group or by others';
    return undefined;
  } catch {
    return undefined;
  }
}
