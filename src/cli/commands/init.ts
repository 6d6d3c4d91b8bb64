import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../../config/locations.js';
import { EXTENSION_NAME_PATTERN } from '../../extensions/define.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';

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
  io.out(`Run its test (nothing to install): hermes extensions test-suite ${name}`);
  io.out(
    `Next: hermes extensions doctor${options.project ? ' (trust the project first: hermes extensions trust)' : ''}`,
  );
  return 0;
}

function extensionSource(name: string): string {
  return `import { block, defineExtension, injectSystem, pass, rewrite } from 'hermes-extensions';
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
        if (typeof event.toolArgs.path === 'string' && event.toolArgs.path.startsWith('./')) {
          return rewrite({ ...event.toolArgs, path: event.toolArgs.path.slice(2) });
        }
        return undefined;
      },
      { priority: 100 },
    );
  },
});
`;
}

function testSource(name: string): string {
  return `// Run it with \`hermes extensions test-suite ${name}\`: vitest, with hermes-extensions and zod
// as the command line has them, so this folder needs no package.json or node_modules.
import { createRuntime, runConversation } from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { expect, it } from 'vitest';
import extension from './index.js';

it('${name} blocks a denied tool and lets others run', async () => {
  const runtime = await createRuntime({
    extensions: [extension],
    config: { extensions: { '${name}': { denied_tools: ['delete'] } } },
  });
  const ran: string[] = [];
  const result = await runConversation({
    runtime,
    sessionId: 'test',
    userMessage: 'tidy up',
    systemPrompt: 'You are a coding agent.',
    model: scriptedModel([
      { content: '', toolCalls: [toolCall('delete', { path: 'a.txt' }), toolCall('read', { path: './b.txt' })] },
      { content: 'Done.' },
    ]),
    tools: {
      delete: { execute: () => void ran.push('delete') },
      read: { execute: (args) => void ran.push(\`read \${args.path}\`) },
    },
  });
  expect(result.toolCalls.map((call) => call.blocked)).toEqual([true, false]);
  expect(ran).toEqual(['read b.txt']);
});
`;
}
