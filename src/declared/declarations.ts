import { readFileSync, realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { hermesCommand } from '../command-name.js';
import { formatConfigIssues } from '../config/errors.js';
import { MODE_KEY } from '../config/extension-mode.js';
import { expandHome } from '../config/locations.js';
import { type HermesConfig, RESERVED_CONFIG_KEYS } from '../config/schema.js';
import type { Diagnostic, ExtensionCandidate } from '../extensions/types.js';
import { sha256 } from '../fs/digest.js';
import { DISK, type FileView } from '../fs/file-view.js';
import { insideRelative } from '../fs/paths.js';
import type { ReadGuard } from '../modules/read-guard.js';
import { cedarDecide, type NamedFile } from './cedar.js';
import { type Decide, declaredExtension } from './extension.js';
import { httpDecide } from './http.js';
import { type JudgeOptions, judgeDecide } from './judge.js';
import { chatCompletionsModel, providerModel } from './judge-model.js';
import { regoServerDecide, regoServerURL } from './rego-server.js';
import { regoWasmDecide } from './rego-wasm.js';
import { headersFromEnv, type Remote, urlProblem } from './remote.js';
import { type Declaration, declarationSchema, type JudgeDeclaration, KIND_KEY } from './schema.js';

/** A config layer as loading read it, and whether it is the project's. */
export interface DeclaringLayer {
  config: HermesConfig;
  file: string;
  project: boolean;
}

export interface DeclaredOptions {
  /** The project root: files a project declaration names must be inside it. */
  root: string;
  /** How the project's files are read (as trusted, for a project held at its trusted state). */
  view: FileView;
  /** What was trusted of the project: a file a project declaration names must be one of them. */
  guard: ReadGuard;
  env?: NodeJS.ProcessEnv;
}

/**
 * The keys a project declaration may not use: they reach the user's secrets and network (a
 * provider reads the user's API key from the environment, and its options could send it anywhere).
 */
const USER_ONLY_KEYS = [
  'headers_from_env',
  'allow_insecure_url',
  'api_key_env',
  'provider',
  'provider_options',
] as const;

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_JUDGE_BUDGET = 100;

/**
 * The extensions declared in config (docs/policies.md): each `extensions.<name>` section with a
 * `kind`, as a candidate of the layer that declares it — the user's (`user`) or the project's
 * (`project`, which loading reads only when the project is trusted). A declaration is the one
 * section that declares it: a later layer's section of the same name without `kind` changes only
 * its `mode`, never where it sends calls or what it reads. Every problem stays with its own
 * declaration, as a load error that names the config file and the key (or the policy file).
 */
export async function declaredCandidates(
  layers: readonly DeclaringLayer[],
  options: DeclaredOptions,
): Promise<{
  user: ExtensionCandidate[];
  project: ExtensionCandidate[];
  diagnostics: Diagnostic[];
}> {
  const user: ExtensionCandidate[] = [];
  const project: ExtensionCandidate[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const layer of layers) {
    for (const [name, section] of Object.entries(layer.config.extensions ?? {})) {
      if (RESERVED_CONFIG_KEYS.includes(name) || !declares(section)) continue;
      const started = performance.now();
      const candidate = await declared(name, section, layer, options);
      candidate.loadMs = performance.now() - started;
      (layer.project ? project : user).push(candidate);
      for (const other of layers) {
        const keys = other === layer ? [] : foreignKeys(other.config.extensions?.[name]);
        if (keys.length === 0 || declares(other.config.extensions?.[name])) continue;
        diagnostics.push({
          code: 'CONFIG_UNKNOWN_KEY',
          severity: 'warning',
          extension: name,
          file: other.file,
          message: `extensions.${name}.${keys.join(', ')} in ${other.file} is ignored: "${name}" is declared in ${layer.file}, and only its mode may be set elsewhere`,
        });
      }
    }
  }
  return { user, project, diagnostics };
}

/**
 * The files a config's declarations name (a Cedar policy, its entities and schema), resolved:
 * for a project config, what its trust must cover (src/trust/project-files.ts).
 */
export function declaredFiles(config: HermesConfig, file: string): string[] {
  const files: string[] = [];
  for (const [name, section] of Object.entries(config.extensions ?? {})) {
    if (RESERVED_CONFIG_KEYS.includes(name) || !declares(section)) continue;
    for (const key of FILE_KEYS) {
      const named = (section as Record<string, unknown>)[key];
      if (typeof named === 'string') files.push(resolve(dirname(file), expandHome(named)));
    }
  }
  return files;
}

const FILE_KEYS = ['policy', 'entities', 'schema', 'bundle', 'data'] as const;

/** Whether a section is a declaration: it has a `kind`. */
export function declares(section: unknown): boolean {
  return section !== null && typeof section === 'object' && Object.hasOwn(section, KIND_KEY);
}

/**
 * The keys of the sections that configure a declared extension from another layer than its own:
 * ignored but for `mode`, so a project cannot point the user's declaration elsewhere.
 */
export function foreignKeys(section: unknown): string[] {
  if (section === null || typeof section !== 'object') return [];
  return Object.keys(section).filter((key) => key !== MODE_KEY);
}

async function declared(
  name: string,
  section: unknown,
  layer: DeclaringLayer,
  options: DeclaredOptions,
): Promise<ExtensionCandidate> {
  const base: ExtensionCandidate = {
    name,
    source: layer.project ? 'project' : 'global',
    path: layer.file,
    loadMs: 0,
  };
  const parsed = declarationSchema.safeParse(section);
  if (!parsed.success) {
    const issues = formatConfigIssues(parsed.error, ['extensions', name]);
    return {
      ...base,
      loadError: {
        code: 'CONFIG_SCHEMA',
        message: `declaration of "${name}" in ${layer.file} is wrong:\n${issues}`,
      },
    };
  }
  try {
    const decide = await decideOf(name, parsed.data, layer, options);
    return { ...base, definition: declaredExtension(name, parsed.data, decide) };
  } catch (error) {
    return {
      ...base,
      loadError: {
        code: 'LOAD_FAILED',
        message: `declared ${parsed.data.kind} extension "${name}" (${layer.file}): ${(error as Error).message}`,
      },
    };
  }
}

async function decideOf(
  name: string,
  declaration: Declaration,
  layer: DeclaringLayer,
  options: DeclaredOptions,
): Promise<Decide> {
  if (declaration.kind === 'cedar') {
    const read = (key: 'policy' | 'entities' | 'schema') => {
      const named = declaration[key];
      return named === undefined
        ? undefined
        : readNamed(named, `extensions.${name}.${key}`, layer, options);
    };
    return cedarDecide(name, read('policy') as NamedFile, read('entities'), read('schema'));
  }
  if (declaration.kind === 'rego' && declaration.bundle !== undefined) {
    const data = declaration.data;
    return regoWasmDecide(
      name,
      readBytes(declaration.bundle, `extensions.${name}.bundle`, layer, options),
      data === undefined ? undefined : readNamed(data, `extensions.${name}.data`, layer, options),
      declaration.path,
    );
  }
  if (layer.project) {
    for (const key of USER_ONLY_KEYS) {
      if ((declaration as Record<string, unknown>)[key] !== undefined) {
        throw new Error(
          `extensions.${name}.${key} is refused in project config: only your own config ($HERMES_HOME/config.yaml) may ${key === 'allow_insecure_url' ? 'allow a URL that is neither HTTPS nor on this machine' : 'send your environment (a token, an API key) to a service'}`,
        );
      }
    }
  }
  const timeoutMs = declaration.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (declaration.kind === 'judge' && declaration.provider !== undefined) {
    const who = `${name} (judge ${declaration.provider} ${declaration.model})`;
    return judgeDecide(
      name,
      providerModel(
        {
          provider: declaration.provider,
          ...(declaration.provider_export === undefined
            ? {}
            : { export: declaration.provider_export }),
          ...(declaration.provider_options === undefined
            ? {}
            : { options: declaration.provider_options }),
          model: declaration.model,
          timeoutMs,
          retries: declaration.retries ?? 0,
        },
        who,
      ),
      judgeOptions(declaration),
    );
  }
  const url =
    declaration.kind === 'http'
      ? declaration.url
      : declaration.kind === 'judge'
        ? `${(declaration.endpoint as string).replace(/\/+$/, '')}/chat/completions`
        : regoServerURL(declaration.server as string, declaration.path as string);
  const problem = urlProblem(url, declaration.allow_insecure_url === true);
  if (problem !== undefined) throw new Error(`extensions.${name}: ${problem}`);
  const env = options.env ?? process.env;
  const remote: Remote = {
    url,
    headers: {
      ...headersFromEnv(declaration.headers_from_env, env),
      ...(declaration.kind === 'judge' && declaration.api_key_env !== undefined
        ? bearer(headersFromEnv({ Authorization: declaration.api_key_env }, env))
        : {}),
    },
    retries: declaration.retries ?? 0,
    timeoutMs,
  };
  if (declaration.kind === 'judge') {
    return judgeDecide(
      name,
      chatCompletionsModel(remote, declaration.model, `${name} (judge ${declaration.model})`),
      judgeOptions(declaration),
    );
  }
  return declaration.kind === 'http'
    ? httpDecide(name, remote)
    : regoServerDecide(name, declaration.path as string, remote);
}

function judgeOptions(declaration: JudgeDeclaration): JudgeOptions {
  return {
    prompt: declaration.prompt,
    model: declaration.model,
    notOk: declaration.not_ok ?? 'block',
    budget: declaration.budget ?? DEFAULT_JUDGE_BUDGET,
  };
}

function bearer(headers: Record<string, string>): Record<string, string> {
  return { Authorization: `Bearer ${headers.Authorization}` };
}

/**
 * A file a declaration names, relative to its config file. A project's must be inside the project
 * and one its trust covers, with the bytes trusted (read as trusted when the project changed
 * since): a policy is project code, and a changed one waits for `trust` as a changed extension does.
 */
function readNamed(
  named: string,
  key: string,
  layer: DeclaringLayer,
  options: DeclaredOptions,
): NamedFile {
  const path = resolve(dirname(layer.file), expandHome(named));
  if (!layer.project) return { path, text: read(path, key) };
  if (insideRelative(options.root, path) === undefined) {
    throw new Error(
      `${key}: ${path} is outside the project ${options.root}; a project may only name its own files`,
    );
  }
  const text = read(path, key, options.view);
  const allowed = options.guard.allowed;
  if (allowed !== undefined) {
    const rel = relative(realpathSync(options.root), options.view.real(path)).split(sep).join('/');
    if (allowed.get(rel) !== sha256(Buffer.from(text, 'utf8'))) {
      throw new Error(
        `${key}: ${path} changed since the project was trusted, or was not trusted; review it and run \`${hermesCommand()} extensions trust\``,
      );
    }
  }
  return { path, text };
}

/**
 * A binary file a declaration names (a compiled policy), checked as readNamed checks text. A
 * project's is read from disk and must be as trusted: the trusted state keeps no copy of it, so a
 * changed one does not load (and calls are refused) until the project is trusted again.
 */
function readBytes(
  named: string,
  key: string,
  layer: DeclaringLayer,
  options: DeclaredOptions,
): { path: string; bytes: Buffer } {
  const path = resolve(dirname(layer.file), expandHome(named));
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(`${key}: cannot read ${path}: ${(error as Error).message}`);
  }
  if (layer.project) checkTrusted(path, bytes, key, options);
  return { path, bytes };
}

function checkTrusted(path: string, bytes: Buffer, key: string, options: DeclaredOptions): void {
  if (insideRelative(options.root, path) === undefined) {
    throw new Error(
      `${key}: ${path} is outside the project ${options.root}; a project may only name its own files`,
    );
  }
  const allowed = options.guard.allowed;
  if (allowed === undefined) return;
  const rel = relative(realpathSync(options.root), realpathSync(path)).split(sep).join('/');
  if (allowed.get(rel) !== sha256(bytes)) {
    throw new Error(
      `${key}: ${path} changed since the project was trusted, or was not trusted; review it and run \`${hermesCommand()} extensions trust\``,
    );
  }
}

function read(path: string, key: string, view?: FileView): string {
  try {
    return (view ?? DISK).read(path);
  } catch (error) {
    throw new Error(`${key}: cannot read ${path}: ${(error as Error).message}`);
  }
}
