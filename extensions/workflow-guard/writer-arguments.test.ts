import { linkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';

function project() {
  const root = tree({
    'src/app.ts': 'export const app = 1;\n',
    'package.json': '{}\n',
    'plans/.keep': '',
  });
  // A second name of a source file inside plans/, as a hard link.
  linkSync(join(root, 'src/app.ts'), join(root, 'plans/app-alias.ts'));
  return root;
}

// The analysis as a host without the sandbox meets it (`sandbox: off`); sandbox.test.ts makes a
// hard link from src/ into plans/ in the sandbox, where it fails.
async function decide(root: string, toolName: string, toolArgs: Record<string, unknown>) {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': { sandbox: 'off' } } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

const nested = (depth: number, leaf: unknown): unknown =>
  depth === 0 ? leaf : { inner: nested(depth - 1, leaf) };

type Row = [label: string, tool: string, args: (root: string) => Record<string, unknown>];
const decoy = { path: 'plans/x.md', content: 'x' };

/**
 * Writer calls that name a file outside plans/ where the guard does not look for one, or in a
 * form a tool may read otherwise than the guard: each is refused as unclear, naming the argument.
 */
const HIDDEN: Array<[...Row, argument: string]> = [
  [
    'a file: URL under uri',
    'write',
    (root) => ({ ...decoy, uri: `file://${root}/src/app.ts` }),
    'uri',
  ],
  ['a path under url', 'write', () => ({ ...decoy, url: 'src/app.ts' }), 'url'],
  ['a path under to', 'write', () => ({ ...decoy, to: 'src/app.ts' }), 'to'],
  ['a path under name', 'write', () => ({ ...decoy, name: 'src/app.ts' }), 'name'],
  [
    'a {path: content} map',
    'write',
    () => ({ ...decoy, files: { 'src/app.ts': 'x' } }),
    'argument `files` has an entry named "src/app.ts"',
  ],
  [
    'an argument named by a path',
    'write',
    () => ({ ...decoy, 'src/app.ts': 'x' }),
    'an argument is named "src/app.ts"',
  ],
  [
    'nested lists',
    'edit',
    () => ({ ...decoy, edits: [[{ where: 'src/app.ts' }]] }),
    'edits[0][0].where',
  ],
  ['a path in a JSON string', 'write', () => ({ ...decoy, args: '{"path":"src/app.ts"}' }), 'args'],
  [
    'a bare top-level name in a JSON string',
    'write',
    () => ({ ...decoy, args: '{"path":"package.json"}' }),
    'args.path',
  ],
  ['an existing top-level file by name', 'write', () => ({ ...decoy, to: 'package.json' }), 'to'],
  ['an existing top-level folder by name', 'write', () => ({ ...decoy, to: 'SRC' }), 'to'],
  ['the parent folder', 'write', () => ({ ...decoy, to: '..' }), 'to'],
  ['the home folder', 'write', () => ({ ...decoy, to: '~/.bashrc' }), 'to'],
  ['a Windows drive path', 'write', () => ({ ...decoy, to: 'C:\\repo\\src\\app.ts' }), 'to'],
  ['a UNC path', 'write', () => ({ ...decoy, to: '\\\\server\\share\\src\\app.ts' }), 'to'],
  ['%2e%2e in a path', 'write', () => ({ path: 'plans/%2e%2e/src/app.ts', content: 'x' }), 'path'],
  ['..%2f in a path', 'write', () => ({ path: 'plans/..%2fsrc/app.ts', content: 'x' }), 'path'],
  ['..%5c in a path', 'write', () => ({ path: 'plans/..%5csrc%5capp.ts', content: 'x' }), 'path'],
  ['escapes escaped twice', 'write', () => ({ path: 'plans/%252e%252e/src/app.ts' }), 'path'],
  ['an escape that does not decode', 'write', () => ({ path: 'plans/%E0%A4%A.md' }), 'path'],
  ['an escape under another name', 'write', () => ({ ...decoy, to: '%2e%2e/src/app.ts' }), 'to'],
  ['backslashes climbing out', 'write', () => ({ path: 'plans/x/..\\..\\src\\app.ts' }), 'path'],
  [
    'a NUL before a climb back into plans',
    'write',
    () => ({ path: 'src/app.ts\u0000/../../plans/x.md', content: 'x' }),
    'path',
  ],
  [
    'a newline before a climb back into plans',
    'write',
    () => ({ path: 'src/app.ts\n/../../plans/x.md', content: 'x' }),
    'path',
  ],
  ['an escaped name of a hard link', 'write', () => ({ path: 'plans/app%2dalias.ts' }), 'path'],
  [
    'an LSP workspace edit keyed by file: URL',
    'edit',
    (root) => ({
      ...decoy,
      changes: { [`file://${root}/src/app.ts`]: [{ range: {}, newText: 'x' }] },
    }),
    'argument `changes` has an entry named',
  ],
  [
    'an LSP document change',
    'edit',
    (root) => ({
      ...decoy,
      documentChanges: [{ textDocument: { uri: `file://${root}/src/app.ts` }, edits: [] }],
    }),
    'documentChanges[0].textDocument.uri',
  ],
  ['fullwidth dots', 'write', () => ({ path: 'plans/\uFF0E\uFF0E/src/app.ts' }), 'path'],
  [
    'JSON text nested past what is read',
    'write',
    () => ({ ...decoy, args: JSON.stringify(nested(25, { path: 'package.json' })) }),
    'is nested too deep to read',
  ],
];

/** Calls the guard already placed: a path under a name it knows, in another case. */
const NAMED: Row[] = [
  ['Path', 'write', () => ({ Path: 'src/app.ts', content: 'x' })],
  ['FILE_PATH', 'write', () => ({ FILE_PATH: 'src/app.ts', content: 'x' })],
  ['edits[][].file', 'edit', () => ({ ...decoy, edits: [[{ file: 'src/app.ts' }]] })],
];

describe('workflow-guard without a plan: every string of a writer call that may name a file', () => {
  it.each(HIDDEN)(
    'refuses %s as unclear, naming the argument',
    async (_l, tool, args, argument) => {
      const root = project();
      const outcome = await decide(root, tool, args(root));
      expect(outcome, JSON.stringify(args(root))).toMatchObject({
        blocked: true,
        message: expect.stringContaining(`Write the plan at ${PLAN}`),
      });
      const named = argument.includes(' ') ? argument : `argument \`${argument}\` holds`;
      expect(outcome.blocked && outcome.message).toContain(named);
      expect(outcome.blocked && outcome.message).toContain("out of workflow-guard's blocked_tools");
    },
  );

  it.each(NAMED)('refuses a path under %s', async (_label, tool, args) => {
    const root = project();
    expect((await decide(root, tool, args(root))).blocked).toBe(true);
  });

  it('a file: URL into plans/ is refused too: a tool that does not decode it writes file:/…', async () => {
    const root = project();
    const outcome = await decide(root, 'write', { path: `file://${root}/plans/x.md` });
    expect(outcome.blocked).toBe(true);
  });

  it('a refusal is unclear, so no person is asked to approve it', async () => {
    const root = project();
    const runtime = await createRuntime({
      extensions: [workflowGuard],
      cwd: root,
      config: { extensions: { 'workflow-guard': { on_violation: 'ask' } } },
      logger: memoryLogger(),
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'write', toolArgs: { ...decoy, to: 'src/app.ts' } }),
    );
    expect(outcome).toMatchObject({ blocked: true });
  });
});

/** Writes into plans/ whose other arguments hold file names as text: they keep passing. */
const ORDINARY: Row[] = [
  [
    'a plan that names source files',
    'write',
    () => ({ path: PLAN, content: '# Plan\n1. change src/app.ts and ./package.json\n' }),
  ],
  ['Edit', 'edit', () => ({ file_path: PLAN, old_string: 'src/a.ts', new_string: 'src/b.ts' })],
  [
    'opencode edit (camelCase)',
    'edit',
    () => ({ filePath: PLAN, oldString: 'import "./a"', newString: 'import "./b"' }),
  ],
  [
    'MCP filesystem edit_file',
    'edit_file',
    () => ({ path: PLAN, edits: [{ oldText: 'src/a', newText: 'src/b' }], dryRun: false }),
  ],
  [
    'Cursor edit_file',
    'edit_file',
    () => ({
      target_file: PLAN,
      instructions: 'I note that src/app.ts changes',
      code_edit: '- src/app.ts\n',
    }),
  ],
  [
    'str_replace_editor create',
    'str_replace_editor',
    () => ({ command: 'create', path: PLAN, file_text: 'see src/app.ts' }),
  ],
  [
    'multi_edit',
    'multi_edit',
    () => ({ file_path: PLAN, edits: [{ old_string: 'src/a', new_string: 'src/b' }] }),
  ],
  ['another argument naming a file in plans', 'write', () => ({ ...decoy, ref: 'plans/y.md' })],
  ['an escaped space', 'write', () => ({ path: 'plans/a%20b.md', content: 'x' })],
  ['JSON as content', 'write', () => ({ path: 'plans/a.json', content: '{"path":"src/app.ts"}' })],
  ['the allowed folder by name', 'write', () => ({ ...decoy, to: 'plans' })],
];

describe('workflow-guard without a plan: file names inside content are content', () => {
  it.each(ORDINARY)('allows %s', async (_label, tool, args) => {
    const root = project();
    const outcome = await decide(root, tool, args(root));
    expect(outcome).not.toHaveProperty('message');
    expect(outcome.blocked).toBe(false);
  });
});

/** A hard link into plans/ is another name of a source file: making one is a write to it. */
const HARD_LINKS: Row[] = [
  ['ln', 'bash', () => ({ command: 'ln src/app.ts plans/alias.ts' })],
  ['ln into a folder', 'bash', () => ({ command: 'ln src/app.ts plans/' })],
  ['link', 'bash', () => ({ command: 'link src/app.ts plans/alias.ts' })],
  ['cp -l', 'bash', () => ({ command: 'cp -l src/app.ts plans/alias.ts' })],
  ['cp --link', 'bash', () => ({ command: 'cp --link src/app.ts plans/alias.ts' })],
  ['cp -al', 'bash', () => ({ command: 'cp -al src plans/src' })],
  ['then a write through it', 'write', () => ({ path: 'plans/app-alias.ts', content: 'x' })],
  ['then an edit through it', 'edit', () => ({ file_path: 'plans/app-alias.ts' })],
  ['then a redirection through it', 'bash', () => ({ command: 'echo x > plans/app-alias.ts' })],
];

describe('workflow-guard without a plan: hard links', () => {
  it.each(HARD_LINKS)('refuses %s', async (_label, tool, args) => {
    const root = project();
    expect((await decide(root, tool, args(root))).blocked).toBe(true);
  });
});
