import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { findProjectRoot } from '../../config/locations.js';
import { DECLARED_KINDS, type DeclaredKind } from '../../declared/schema.js';
import { EXTENSION_NAME_PATTERN } from '../../extensions/define.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions init NAME --kind cedar|rego|http|judge [--project]`: a declared extension
 * (docs/policies.md). For `cedar`, a policy file and a test of it beside the config; for every
 * kind, the section to add to the config file, printed rather than written: the config is the
 * user's to edit (a project's is covered by its trust), and the section declares the service to
 * ask. The services' sections start in shadow mode, so a service not up yet refuses nothing.
 */
export async function initDeclaredCommand(
  context: CommandContext,
  name: string,
  kind: string,
  options: { project?: boolean },
  io: Io,
) {
  if (!EXTENSION_NAME_PATTERN.test(name)) {
    throw new CliError(
      `"${name}" is not a valid extension name: use lower-case words joined by dashes, like my-policy`,
      2,
    );
  }
  if (!(DECLARED_KINDS as readonly string[]).includes(kind)) {
    throw new CliError(`--kind takes ${DECLARED_KINDS.join(', ')}, not "${kind}"`, 2);
  }
  const base = options.project
    ? join(findProjectRoot(context.cwd, context.home), '.hermes')
    : context.home;
  const config = join(base, 'config.yaml');
  const hermes = hermesCommand();
  if (kind === 'cedar') {
    const policies = join(base, 'policies');
    const policy = join(policies, `${name}.cedar`);
    const test = join(policies, `${name}.test.ts`);
    for (const file of [policy, test]) {
      if (existsSync(file))
        throw new CliError(`${file} already exists; choose another name or remove it`, 2);
    }
    mkdirSync(policies, { recursive: true });
    writeFileSync(policy, CEDAR_POLICY);
    writeFileSync(test, cedarTest(name));
    io.out(`Created ${name} in ${policies}:`);
    io.out(`  ${name}.cedar    the policy: forbid rules, each with the @reason the agent is told`);
    io.out(`  ${name}.test.ts  a vitest test of it, through hermes-extensions/testing`);
    io.out('');
  }
  io.out(`Add this to ${config} (under an existing extensions: key, if there is one):`);
  io.out('');
  for (const line of section(name, kind as DeclaredKind)) io.out(`  ${line}`);
  io.out('');
  io.out(
    `Then: ${hermes} extensions list${options.project ? ` (trust the project first: ${hermes} extensions trust)` : ''}; docs/policies.md says every key.`,
  );
  return 0;
}

function section(name: string, kind: DeclaredKind): string[] {
  const head = ['extensions:', `  ${name}:`, `    kind: ${kind}`];
  switch (kind) {
    case 'cedar':
      return [
        ...head,
        `    policy: policies/${name}.cedar`,
        '    default: pass            # no decision: pass | block',
      ];
    case 'http':
      return [
        ...head,
        '    url: http://127.0.0.1:8080/decide',
        '    timeout_ms: 2000',
        '    mode: shadow             # remove once the service answers',
      ];
    case 'rego':
      return [
        ...head,
        '    server: http://127.0.0.1:8181',
        '    path: hermes/decision',
        '    mode: shadow             # remove once OPA answers',
      ];
    case 'judge':
      return [
        ...head,
        '    endpoint: http://127.0.0.1:11434/v1',
        '    model: llama3.1',
        '    prompt: "Does this command send data off this machine? {{toolArgs.command}}"',
        '    tools: [bash]',
        '    mode: shadow             # remove once the model answers as you expect',
      ];
  }
}

const CEDAR_POLICY = `// Each forbid that applies blocks the call with its @reason. The request: docs/policies.md.
@id("no-force-push")
@reason("force pushes rewrite shared history; push a new commit instead")
forbid(principal, action, resource is Hermes::Command)
when { resource.name like "*push --force*" || resource.name like "*push -f*" };

@id("no-env-files")
@reason("the agent may not read or write .env files")
forbid(principal, action, resource is Hermes::Path)
when { resource.name like "*.env" };
`;

function cedarTest(name: string): string {
  return `// Run it with \`vitest run\` once the section is in ../config.yaml (see \`init\`'s output).
import { declaredExtension, testGuard } from 'hermes-extensions/testing';

await testGuard(await declaredExtension(new URL('../config.yaml', import.meta.url), '${name}'), {
  intercept_tool_call: {
    pass: [
      { tool: 'bash', args: { command: 'git push origin main' } },
      { tool: 'read', args: { file_path: 'src/app.ts' } },
    ],
    block: [
      { tool: 'bash', args: { command: 'git push --force' }, message: 'force pushes' },
      { tool: 'write', args: { file_path: 'config/.env', content: 'KEY=1' }, message: '.env files' },
    ],
  },
});
`;
}
