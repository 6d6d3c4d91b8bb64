import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { findProjectRoot } from '../../config/locations.js';
import { EXTENSION_NAME_PATTERN } from '../../extensions/define.js';
import { installPeerCommand, optionalPeer } from '../../optional-peers.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';
import {
  installVitestAdvice,
  projectOfFramework,
  vitestBesideFramework,
} from '../vitest-beside.js';

/** The endings of a single-file extension (`extensions/discovery.ts`). */
const SINGLE_FILE_ENDINGS = ['ts', 'mts', 'js', 'mjs'] as const;

/**
 * `hermes extensions init NAME [--project]`: a working extension — every hook with a commented
 * example and a config schema — and a vitest test for it, where the agent will load it.
 */
export async function initCommand(
  context: CommandContext,
  name: string,
  options: { project?: boolean },
  io: Io,
) {
  if (!EXTENSION_NAME_PATTERN.test(name)) {
    throw new CliError(
      `"${name}" is not a valid extension name: use lower-case words joined by dashes, like my-guard`,
      2,
    );
  }
  const dir = options.project
    ? join(findProjectRoot(context.cwd, context.home), '.hermes', 'extensions', name)
    : join(context.home, 'extensions', name);
  if (existsSync(dir))
    throw new CliError(`${dir} already exists; choose another name or remove it`, 2);
  // Discovery reads `NAME.ts` after the folder `NAME/`, and the later of two same-named
  // extensions wins: the new folder would never load.
  const single = SINGLE_FILE_ENDINGS.map((ending) => `${dir}.${ending}`).find(existsSync);
  if (single !== undefined) {
    throw new CliError(
      `${single} is already an extension of the same name, which would shadow a new folder ${dir}; choose another name, or rename or remove that file`,
      2,
    );
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.ts'), extensionSource(name));
  writeFileSync(join(dir, 'index.test.ts'), testSource(name));
  io.out(`Created ${name} in ${dir}:`);
  io.out(`  index.ts       the extension: one example handler per hook, and its config schema`);
  io.out(`  index.test.ts  a vitest test that runs it through hermes-extensions/testing`);
  io.out('');
  const hermes = hermesCommand();
  for (const line of howToRunTest(name, hermes)) io.out(line);
  // A project's extension is trusted and loaded as a bundle made with rolldown, an optional peer
  // (src/optional-peers.ts); a global one loads without it.
  if (options.project && !optionalPeer('rolldown').usable) {
    io.out(
      `Before \`${hermes} extensions trust\`, install rolldown (it bundles project code): ${installPeerCommand('rolldown')}`,
    );
  }
  io.out(
    `Next: ${hermes} extensions doctor${options.project ? ` (trust the project first: ${hermes} extensions trust)` : ''}`,
  );
  return 0;
}

/**
 * `test-suite` runs the test with vitest found beside the framework: a checkout has it, an install
 * in a project or a global one only once it is installed there. Say which, and how.
 */
function howToRunTest(name: string, hermes: string): string[] {
  const run = `${hermes} extensions test-suite ${name}`;
  if (vitestBesideFramework() !== undefined) return [`Run its test (vitest is installed): ${run}`];
  const project = projectOfFramework();
  const where = project === undefined ? 'beside hermes-extensions' : `in ${project}`;
  return [
    `To run its test, install vitest ${where} first: ${installVitestAdvice()}`,
    `  then: ${run}`,
  ];
}

function extensionSource(name: string): string {
  return `import { ask, block, defineExtension, injectSystem, P, pass, rewrite } from 'hermes-extensions';
import { z } from 'zod';

/**
 * ${name}: describe what this extension enforces. Configure it under \`extensions.${name}\` in
 * ~/.hermes/config.yaml or the project's config; the schema below validates that section.
 */
export default defineExtension({
  name: '${name}',
  version: '0.1.0',
  description: 'What ${name} does, in one line',
  configSchema: z.object({
    /** Tools this extension refuses. */
    denied_tools: z.array(z.string()).default([]),
    /** Files a person approves before they are written (paths starting with these). */
    protected_paths: z.array(z.string()).default(['.env']),
  }),
  setup(hermes) {
    // Before the user's message is used: rewrite it, block it (ends the turn), or pass.
    hermes.on('transform_user_input', (event) => {
      if (event.userMessage.trim() === '') return block('Say what you need.');
      return pass();
    });

    // Before every model request: add to this request's system prompt (the stored one is untouched).
    hermes.on('before_llm_call', () => injectSystem('Keep changes small and explain them.'));

    // Before each tool call: block it (the model gets the message), rewrite its args, or pass.
    hermes.on(
      'intercept_tool_call',
      (event) => {
        if (hermes.config.denied_tools.includes(event.toolName)) {
          return block(\`\${event.toolName} is not allowed by ${name}.\`);
        }
        // A package's install scripts run whatever it ships: install without them.
        const command = event.toolArgs.command;
        const installs = typeof command === 'string' && /^npm (i|install)\\b/.test(command);
        if (event.toolName === 'bash' && installs && !command.includes('--ignore-scripts')) {
          return rewrite({ ...event.toolArgs, command: \`\${command} --ignore-scripts\` });
        }
        return undefined;
      },
      { priority: 100 },
    );

    // A validator runs after every rewrite, on the call as it would run; \`when\` picks the calls
    // (and types \`event.toolArgs.path\` as a string). \`ask\`: a person approves the call (a host
    // with nobody to ask denies it, with this reason).
    hermes.on(
      'intercept_tool_call',
      (event) => {
        const path = event.toolArgs.path;
        if (hermes.config.protected_paths.some((prefix) => path.startsWith(prefix))) {
          return ask(\`\${path} is protected by ${name}: approve the change.\`);
        }
        return undefined;
      },
      {
        phase: 'validate',
        when: { toolName: P.union('write', 'edit'), toolArgs: { path: P.string } },
      },
    );
  },
});
`;
}

function testSource(name: string): string {
  return `// Run it with \`hermes extensions test-suite ${name}\`: vitest, with hermes-extensions and zod
// as the command line has them, so this folder needs no package.json or node_modules.
import { testGuard } from 'hermes-extensions/testing';
import { describe, it } from 'vitest';
import extension from './index.js';

// One test per case: each call goes through a real runtime holding this extension, with this
// config, and must have the outcome of its table. A failure says which case, what was expected
// and what the chain did. \`turns\` takes sequences of calls in one turn.
await testGuard(
  extension,
  {
    config: { denied_tools: ['delete'], protected_paths: ['.env'] },
    intercept_tool_call: {
      pass: [{ tool: 'read', args: { path: 'src/app.ts' } }],
      rewrite: [
        {
          tool: 'bash',
          args: { command: 'npm install left-pad' },
          to: { command: 'npm install left-pad --ignore-scripts' },
        },
      ],
      block: [{ tool: 'delete', args: { path: 'a.txt' }, message: 'not allowed' }],
      ask: [{ tool: 'write', args: { path: '.env', content: 'KEY=1' }, message: 'protected' }],
    },
    transform_user_input: {
      pass: ['tidy up'],
      block: [{ input: '   ', message: 'Say what you need' }],
    },
    before_llm_call: {
      rewrite: [{ systemPrompt: 'You are a coding agent.', to: { systemPrompt: /Keep changes small/ } }],
    },
  },
  { describe, it },
);
`;
}
