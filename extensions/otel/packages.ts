import { createRequire } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The OpenTelemetry packages this extension imports, with the versions it is built against: the
 * optional peer dependencies of hermes-extensions (package.json), which a default install leaves
 * out, as they are most of its size. test/packaging/otel-packages.test.ts checks that
 * package.json names the same ones.
 */
export const OTEL_PACKAGES: Readonly<Record<string, string>> = {
  '@opentelemetry/api': '^1.9.1',
  '@opentelemetry/exporter-metrics-otlp-http': '~0.223.0',
  '@opentelemetry/exporter-trace-otlp-http': '~0.223.0',
  '@opentelemetry/resources': '~2.12.0',
  '@opentelemetry/sdk-metrics': '~2.12.0',
  '@opentelemetry/sdk-trace-base': '~2.12.0',
};

/** The packages of OTEL_PACKAGES that `from` (a file) cannot import, as Node would look for them. */
export function missingOtelPackages(from: string): string[] {
  const require = createRequire(from);
  return Object.keys(OTEL_PACKAGES).filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * What to tell a user whose install has no OpenTelemetry: which packages are missing, and the one
 * command that installs all of them (the ones present too, so the versions stay a set that works
 * together) in the folder whose node_modules holds hermes-extensions.
 */
export function otelNotInstalled(missing: readonly string[], from: string): string {
  const command = `npm install ${Object.entries(OTEL_PACKAGES)
    .map(([name, range]) => `${name}@${range}`)
    .join(' ')}`;
  return `OpenTelemetry is not installed: run \`${command}\` in ${installFolder(from)} (the otel extension needs it; hermes-extensions leaves it out of a default install; missing: ${missing.join(', ')})`;
}

/**
 * The folder to install in: the one whose node_modules holds this copy of hermes-extensions
 * (extensions/otel/ is two levels inside it), or the package's own folder when it is not installed
 * as a dependency (a clone of the repository).
 */
function installFolder(from: string): string {
  const packageRoot = resolve(dirname(from), '..', '..');
  let folder = dirname(packageRoot);
  if (basename(folder).startsWith('@')) folder = dirname(folder);
  return basename(folder) === 'node_modules' ? dirname(folder) : packageRoot;
}

/** Throws the message above when a package is missing; `moduleUrl` is the caller's `import.meta.url`. */
export function assertOtelInstalled(moduleUrl: string): void {
  const from = fileURLToPath(moduleUrl);
  const missing = missingOtelPackages(from);
  if (missing.length > 0) throw new Error(otelNotInstalled(missing, from));
}
