import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { block, createRuntime, defineExtension, P, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

type Args = Record<string, unknown>;

/**
 * Runs one call through a runtime rooted at `root` whose one handler records what it saw and
 * returns what `answer` makes of it.
 */
async function through(
  root: string,
  toolArgs: Args,
  answer: (args: Args) => Args | undefined = () => undefined,
) {
  const seen: Args[] = [];
  const extension = defineExtension({
    name: 'recorder',
    setup(hermes) {
      hermes.on('intercept_tool_call', (event) => {
        seen.push(event.toolArgs);
        const rewritten = answer(event.toolArgs);
        return rewritten === undefined ? undefined : rewrite(rewritten);
      });
    },
  });
  const runtime = await createRuntime({ extensions: [extension], cwd: root });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'write', toolArgs }),
  );
  await runtime.close();
  return { seen: seen[0] as Args, outcome };
}

describe('paths in one form for every host', () => {
  it('shows a file inside the project project-relative, and gives the host its own arguments back', async () => {
    const root = tree();
    const toolArgs = { file_path: join(root, 'src/a.ts'), content: join(root, 'src/b.ts') };
    const { seen, outcome } = await through(root, toolArgs);
    // Only arguments named as paths are paths: content is what is written.
    expect(seen).toEqual({ file_path: 'src/a.ts', content: join(root, 'src/b.ts') });
    expect(outcome.changed).toBe(false);
    expect(outcome.value).toBe(toolArgs);
  });

  it('keeps a path outside the project absolute, and the root itself is "."', async () => {
    const root = tree();
    const { seen } = await through(root, {
      path: '/etc/passwd',
      dir: root,
      target_file: `${root}-sibling/a.ts`,
    });
    expect(seen).toEqual({ path: '/etc/passwd', dir: '.', target_file: `${root}-sibling/a.ts` });
  });

  it('drops `.` segments and doubled slashes, but passes a path with `..` as sent', async () => {
    const root = tree();
    const { seen } = await through(root, {
      path: `${root}//src/./a.ts`,
      file: './src/b.ts',
      filename: `${root}/src/../.env`,
      paths: [`${root}/src/c.ts`, 'lib/../src/d.ts', 7],
    });
    expect(seen).toEqual({
      path: 'src/a.ts',
      file: 'src/b.ts',
      // Which file `..` names depends on the links along the way: the guard resolves it.
      filename: `${root}/src/../.env`,
      paths: ['src/c.ts', 'lib/../src/d.ts', 7],
    });
  });

  it('knows the project by where its links lead too', async () => {
    const real = tree();
    const link = join(tree(), 'project');
    symlinkSync(real, link);
    const { seen } = await through(link, { path: join(real, 'src/a.ts'), file: `${link}/b.ts` });
    expect(seen).toEqual({ path: 'src/a.ts', file: 'b.ts' });
  });

  it("puts a handler's relative rewrite back in the host's absolute form", async () => {
    const root = tree();
    const { outcome } = await through(
      root,
      { file_path: join(root, 'notes.tmp'), paths: [join(root, 'a.tmp'), join(root, 'b.md')] },
      (args) => ({
        // A handler writes project-relative paths, as it reads them.
        file_path: `docs/${String(args.file_path).replace(/\.tmp$/, '.md')}`,
        paths: (args.paths as string[]).map((path) => path.replace(/\.tmp$/, '.md')),
        added: 'x',
      }),
    );
    expect(outcome.changed).toBe(true);
    expect(outcome.value).toEqual({
      file_path: join(root, 'docs/notes.md'),
      paths: [join(root, 'a.md'), join(root, 'b.md')],
      added: 'x',
    });
    expect(Object.isFrozen(outcome.value)).toBe(true);
  });

  it('leaves relative paths the host sent relative when a handler rewrites them', async () => {
    const root = tree();
    const { outcome } = await through(root, { path: 'a.tmp' }, () => ({ path: 'a.md' }));
    expect(outcome.value).toEqual({ path: 'a.md' });
  });

  it("lets the README's `when` example hold for an absolute path", async () => {
    const root = tree();
    const frozen = defineExtension({
      name: 'frozen',
      setup(hermes) {
        hermes.on('intercept_tool_call', () => block('src is frozen'), {
          when: { toolName: 'write', toolArgs: { path: P.string.startsWith('src/') } },
        });
      },
    });
    const runtime = await createRuntime({ extensions: [frozen], cwd: root });
    const call = (path: string) =>
      runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName: 'write', toolArgs: { path } }),
      );
    expect((await call(join(root, 'src/a.ts'))).blocked).toBe(true);
    expect((await call('src/a.ts')).blocked).toBe(true);
    expect((await call(join(root, 'docs/a.md'))).blocked).toBe(false);
    await runtime.close();
  });

  it('shows every spelling a path may be sent in, at any place in it, in the one form', async () => {
    const root = tree();
    const { seen } = await through(root, {
      path: 'src/./a.ts',
      file: 'src//b.ts',
      dir: 'src/.',
      directory: 'src/lib/',
      filename: `${root}/c.ts`,
      files: ['./d.ts', 'e.ts/.', 'src//.', 'plain.ts', `${root}`],
      content: './not/../a/path//',
    });
    expect(seen).toEqual({
      path: 'src/a.ts',
      file: 'src/b.ts',
      dir: 'src',
      directory: 'src/lib/',
      filename: 'c.ts',
      files: ['d.ts', 'e.ts', 'src', 'plain.ts', '.'],
      content: './not/../a/path//',
    });
  });

  it('hands handlers a deep read-only copy, and the host keeps its own arguments', async () => {
    const root = tree();
    const toolArgs = { path: join(root, 'src/a.ts'), edits: [{ old: 'a', new: 'b' }] };
    const { seen, outcome } = await through(root, toolArgs);
    expect(seen).toEqual({ path: 'src/a.ts', edits: [{ old: 'a', new: 'b' }] });
    expect(Object.isFrozen(seen)).toBe(true);
    expect(Object.isFrozen(seen.edits)).toBe(true);
    expect(Object.isFrozen((seen.edits as object[])[0])).toBe(true);
    expect(seen.edits).not.toBe(toolArgs.edits);
    expect(outcome.value).toBe(toolArgs);
    expect(Object.isFrozen(toolArgs)).toBe(false);
  });

  it('shows the paths of arguments that are not a plain object (a class instance) too', async () => {
    const root = tree();
    class Args {
      path = join(root, 'src/a.ts');
      content = 'x';
    }
    const toolArgs = new Args() as unknown as Args & Record<string, unknown>;
    const { seen, outcome } = await through(root, toolArgs);
    expect(seen).toEqual({ path: 'src/a.ts', content: 'x' });
    expect(outcome.value).toBe(toolArgs);
  });

  it('judges each argument by its own name, whatever was sent at its place before', async () => {
    const root = tree();
    const seen: Args[] = [];
    const recorder = defineExtension({
      name: 'recorder',
      setup(hermes) {
        hermes.on('intercept_tool_call', (event) => {
          seen.push(event.toolArgs);
        });
      },
    });
    const runtime = await createRuntime({ extensions: [recorder], cwd: root });
    const calls = [
      { path: join(root, 'src/a.ts'), content: join(root, 'src/b.ts') },
      // The same names at each other's places: content is never a path, path always one.
      { content: join(root, 'src/c.ts'), path: join(root, 'src/d.ts') },
      { file_path: join(root, 'src/e.ts'), path: join(root, 'src/f.ts') },
    ];
    for (const toolArgs of calls) {
      await runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName: 'write', toolArgs }),
      );
    }
    await runtime.close();
    expect(seen).toEqual([
      { path: 'src/a.ts', content: join(root, 'src/b.ts') },
      { content: join(root, 'src/c.ts'), path: 'src/d.ts' },
      { file_path: 'src/e.ts', path: 'src/f.ts' },
    ]);
  });

  it('changes nothing when the project root is the filesystem root', async () => {
    const { seen } = await through('/', { path: '/etc/passwd' });
    expect(seen).toEqual({ path: '/etc/passwd' });
  });
});

describe('a key named __proto__ in the host arguments (JSON gives it as an own key)', () => {
  // `copy[key] = value` for that key would set the copy's prototype instead: the handlers would
  // see the agent's values as inherited arguments and not see the key at all.
  for (const [what, toolArgs] of [
    ['at the top', JSON.parse('{"__proto__": {"file_path": "plans/plan.md"}, "content": "x"}')],
    [
      'one level down',
      JSON.parse('{"file_path": "src/a.ts", "options": {"__proto__": {"force": true}}}'),
    ],
  ] as const) {
    it(`is copied as an own key ${what}, never as the copy's prototype`, async () => {
      const { seen } = await through(tree(), toolArgs as Args);
      const holder = (what === 'at the top' ? seen : seen.options) as Args;
      expect(Object.getPrototypeOf(holder)).toBe(Object.prototype);
      expect(Object.hasOwn(holder, '__proto__')).toBe(true);
      expect('file_path' in seen).toBe(what !== 'at the top');
      expect('force' in holder).toBe(false);
      expect(Object.isFrozen(holder)).toBe(true);
    });
  }
});
