import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';
import { projectCopyAdvice } from './project-copy.js';

/**
 * The optional peer dependencies the framework loads itself (package.json `peerDependencies`,
 * `peerDependenciesMeta`): a default install leaves them out, as together they are most of its
 * size (BENCHMARKS.md, Install size). rolldown bundles project code to trust and load it
 * (src/modules/project-code/); the sandbox runtime runs workflow-guard's shell commands in the OS
 * sandbox (src/policy/sandbox/); the Cedar engine and OPA's wasm runner evaluate declared policies
 * (src/declared/); the MCP SDK speaks the Model Context Protocol for `hermes mcp proxy`
 * (src/host/mcp/).
 */
export type OptionalPeerName =
  | 'rolldown'
  | '@anthropic-ai/sandbox-runtime'
  | '@cedar-policy/cedar-wasm'
  | '@open-policy-agent/opa-wasm'
  | '@modelcontextprotocol/sdk';

export interface OptionalPeer {
  name: OptionalPeerName;
  /** The version package.json's `peerDependencies` pins: the one the framework is tested with. */
  wanted: string;
  /** The version installed where the framework finds it; undefined when it is not installed. */
  installed: string | undefined;
  /** The installed package's folder. */
  folder: string | undefined;
  /** Installed, at the version wanted. */
  usable: boolean;
}

/**
 * The peer as the framework finds it. Looked up from the framework's own folder, the way Node
 * resolves the framework's own `import('rolldown')`, never from the user's project or working
 * directory: in a normal install the peer sits beside hermes-extensions (the project's
 * node_modules, or the global one beside a global install), where this finds it; and a project
 * the agent works in must not choose the bundler that checks its code, or the sandbox that holds
 * its commands, by putting a package of that name in its own node_modules.
 */
export function optionalPeer(name: OptionalPeerName): OptionalPeer {
  const wanted = wantedVersion(name);
  const folder = packageFolder(name);
  const installed = folder === undefined ? undefined : installedVersion(folder);
  // Pinned to one version (a test checks package.json says so): any other one is not it.
  return { name, wanted, installed, folder, usable: installed === wanted };
}

/** What is wrong with the peer, in a phrase (`rolldown is not installed`), or undefined. */
export function peerProblem(peer: OptionalPeer): string | undefined {
  if (peer.installed === undefined) return `${peer.name} is not installed`;
  if (!peer.usable) return `${peer.name} ${peer.installed} is installed, not ${peer.wanted}`;
  return undefined;
}

/** The npm command that installs the wanted version where the framework finds it. */
export function installPeerCommand(name: OptionalPeerName): string {
  return `npm i ${installsGlobally() ? '-g' : '-D'} ${name}@${wantedVersion(name)}`;
}

/**
 * How to install it, as a clause: `run \`npm i -D rolldown@1.2.19\` in <project>`, the project
 * whose node_modules holds hermes-extensions (its own folder for a checkout of the repository);
 * a global install takes `npm i -g`. A command run in a project that has its own copy of
 * hermes-extensions (project-copy.ts) names that copy first: its peers are the project's.
 */
export function installPeerAdvice(name: OptionalPeerName): string {
  const project = projectCopyAdvice();
  const here = installHere(name);
  return project === undefined ? here : `${project}; or, for this copy, ${here}`;
}

function installHere(name: OptionalPeerName): string {
  const command = installPeerCommand(name);
  if (installsGlobally()) {
    return `run \`${command}\` (beside the global hermes-extensions in ${dirname(PACKAGE_ROOT)})`;
  }
  return `run \`${command}\` in ${projectOfFramework() ?? PACKAGE_ROOT}`;
}

function wantedVersion(name: OptionalPeerName): string {
  // The framework's own manifest does not change under a running process: read once.
  peerVersions ??=
    (
      JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
        peerDependencies?: Record<string, string>;
      }
    ).peerDependencies ?? {};
  const wanted = peerVersions[name];
  if (wanted === undefined) {
    throw new Error(`hermes-extensions' package.json names no peer dependency ${name}`);
  }
  return wanted;
}

let peerVersions: Record<string, string> | undefined;

/** The folder Node would load `name` from, for a file of the framework; undefined when none. */
function packageFolder(name: string): string | undefined {
  const lookups = createRequire(join(PACKAGE_ROOT, 'package.json')).resolve.paths(name) ?? [];
  return lookups
    .map((modules) => join(modules, name))
    .find((folder) => existsSync(join(folder, 'package.json')));
}

function installedVersion(folder: string): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The project whose node_modules holds the framework (a package.json beside that node_modules). */
function projectOfFramework(): string | undefined {
  const modules = dirname(PACKAGE_ROOT);
  if (basename(modules) !== 'node_modules') return undefined;
  const project = dirname(modules);
  return existsSync(join(project, 'package.json')) ? project : undefined;
}

/** A global install: in a node_modules with no project around it (`<prefix>/lib/node_modules`). */
function installsGlobally(): boolean {
  return basename(dirname(PACKAGE_ROOT)) === 'node_modules' && projectOfFramework() === undefined;
}
