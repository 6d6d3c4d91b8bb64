import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/** The README's `when` example: writes and edits under src/ are refused. */
const frozen = tsExtension(
  'frozen',
  `hermes.on('intercept_tool_call', (event) => block(\`\${event.toolArgs.path} is frozen\`), {
    when: { toolName: P.union('write', 'edit'), toolArgs: { path: P.string.startsWith('src/') } },
  });`,
  "import { P } from 'hermes-extensions';",
);
/** Moves every write of a `.tmp` file to drafts/, by the project-relative path it reads. */
const drafts = tsExtension(
  'drafts',
  `hermes.on('intercept_tool_call', (event) => {
    const path = String(event.toolArgs.path);
    return path.endsWith('.tmp') ? { action: 'rewrite', value: { ...event.toolArgs, path: 'drafts/' + path } } : undefined;
  });`,
);

function session(extensions: Record<string, string>) {
  const home = tree(
    Object.fromEntries(
      Object.entries(extensions).map(([name, code]) => [`extensions/${name}.ts`, code]),
    ),
  );
  const project = tree({ '.git/HEAD': '' });
  const event = (toolInput: Record<string, unknown>, id: string) => ({
    session_id: 'paths',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_use_id: id,
    tool_input: toolInput,
  });
  return { home, project, event };
}

describe.runIf(built)('hermes hook claude-code: the paths extensions see', () => {
  it("refuses Claude Code's absolute file_path under src/ as `hermes extensions test` does", async () => {
    const { home, project, event } = session({ frozen });
    const write = event({ file_path: join(project, 'src/a.ts'), content: 'x' }, 'toolu_1');
    const denied = await runHook('claude-code', home, write);
    expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('src/a.ts is frozen'),
    });
    const outside = event({ file_path: join(project, 'docs/a.md'), content: 'x' }, 'toolu_2');
    expect((await runHook('claude-code', home, outside)).stdout).toBe('');
  });

  it('gives a rewritten path back absolute, as Claude Code sent it', async () => {
    const { home, project, event } = session({ drafts });
    const write = event({ file_path: join(project, 'notes.tmp'), content: 'x' }, 'toolu_3');
    const answer = await runHook('claude-code', home, write);
    expect(JSON.parse(answer.stdout).hookSpecificOutput.updatedInput).toEqual({
      file_path: join(project, 'drafts/notes.tmp'),
      content: 'x',
    });
  });
});
