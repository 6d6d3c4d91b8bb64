import { block, defineExtension, rewrite } from 'hermes-extensions';
import {
  bwrapSandboxedCallOf,
  extractToolPaths,
  groundSandboxedCallOf,
  mapStrings,
  mayBeSandboxLine,
  normalizeToolName,
  protectedGround,
  SHELL_TOOL_NAMES,
} from 'hermes-extensions/policy';
import { DEFAULT_ALLOW, DEFAULT_FILES, secretsGuardConfig } from './config.js';
import { MAX_ENTRIES, secretFilesOnDisk } from './on-disk.js';
import { EnvValues, redactShapes } from './redact.js';
import { SecretFiles } from './secret-files.js';
import { type NamedSecret, shellSecret, textSecret } from './shell.js';

/** Argument names under which tools take a glob of the files they read (a search's `include`). */
const READ_GLOB_KEYS = ['glob', 'include', 'include_pattern', 'file_pattern', 'files'];

/**
 * Keeps secret files out of the agent's reach and secrets out of what it reads: a tool call that
 * names a secret file (`.env`, keys, credential files: config.ts) — a reading tool by its paths,
 * a search by the files its glob takes, a shell command by every file its words name — is
 * refused; and every tool result has known secret shapes and the values of the project's own
 * `.env` files replaced before the model reads it. It judges names, not programs: what a program
 * reads by itself (`node app.js` loading `.env`) is out of its sight, except in a sandbox the
 * framework starts for the call, where the secret files cannot be opened (README.md, In the sandbox);
 * a secret re-encoded is out of its sight (README.md, What it cannot see).
 */
export default defineExtension({
  name: 'secrets-guard',
  version: '1.0.0',
  description: 'Refuses reads of .env, keys and credential files; redacts secrets in tool results',
  configSchema: secretsGuardConfig,
  setup(hermes) {
    const config = hermes.config;
    const root = hermes.projectRoot;
    const patterns = [...DEFAULT_FILES, ...config.files];
    const secrets = new SecretFiles(root, patterns, [...DEFAULT_ALLOW, ...config.allow]);
    // What a program reads by itself is out of sight of the names above; in a sandbox the
    // framework starts for a call, the secret files that exist then cannot be opened (README.md, In the sandbox).
    let warned = false;
    hermes.denySandboxRead(() => {
      const found = secretFilesOnDisk(root, secrets, patterns);
      if (found.incomplete && !warned) {
        warned = true;
        hermes.log.warn(
          `secrets-guard searched ${MAX_ENTRIES} entries of a folder for secret files and stopped: sandboxed commands may read a secret file it did not reach (name such files in a pattern with a folder, or keep them nearer the project root)`,
        );
      }
      return found.files;
    });
    const ground = protectedGround(root);
    const shells = new Set((config.shell_tools ?? SHELL_TOOL_NAMES).map(normalizeToolName));
    /** `what`: the call and what it does with the file (`Read would read`, `the command names`). */
    const refusal = (what: string, hit: NamedSecret) =>
      block(
        `Blocked by secrets-guard: ${what} ${hit.given}, a secret file (${hit.pattern}). ` +
          'Its values must not reach the model. Ask the user for the variable names you need, or read an example ' +
          'file (.env.example); if the command does not read the file, run it without naming it. ' +
          'A file that holds no secret can be let through with `allow` in the secrets-guard config.',
        { secretsGuard: hit.given },
      );

    hermes.on(
      'intercept_tool_call',
      (event) => {
        const tool = event.toolName;
        if (shells.has(normalizeToolName(tool))) {
          // The framework's sandbox line (a model sends back what it was given) names the secret
          // files to hide them: what runs inside it is judged.
          const args = event.toolArgs;
          const inner = mayBeSandboxLine(args)
            ? (groundSandboxedCallOf(args, ground, hermes.sandboxDenyRead()) ??
              bwrapSandboxedCallOf(args, ground, hermes.sandboxDenyRead()))
            : undefined;
          const hit = shellSecret(inner ?? args, root, secrets);
          return hit === undefined ? undefined : refusal('the command names', hit);
        }
        for (const path of extractToolPaths(event.toolArgs)) {
          const pattern = secrets.secretAt(path);
          if (pattern !== undefined) return refusal(`${tool} would read`, { given: path, pattern });
        }
        // A search reads the files its glob takes; a listing (a tool named for globs) only names them.
        if (!/glob|list|ls$/i.test(tool)) {
          for (const key of READ_GLOB_KEYS) {
            const value = event.toolArgs[key];
            if (typeof value !== 'string') continue;
            const hit = secrets.secretInGlob(value, undefined, true) ?? textSecret(value, secrets);
            if (hit !== undefined)
              return refusal(
                `${tool} would read`,
                typeof hit === 'string' ? { given: value, pattern: hit } : hit,
              );
          }
        }
        return undefined;
      },
      // A validator: it judges the call as it will run, after any rewrite.
      { phase: 'validate', priority: 10 },
    );

    if (!config.redact) return;
    const env = new EnvValues(root, secrets);
    hermes.on('transform_tool_result', (event) => {
      const redacted = mapStrings(event.result, (text) => env.redact(redactShapes(text)));
      return redacted === event.result ? undefined : rewrite(redacted);
    });
  },
});
