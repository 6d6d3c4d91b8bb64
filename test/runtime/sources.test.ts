import { existsSync } from 'node:fs';
import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { blockedOutcome } from '../support/helpers.js';

const quiet = { logger: memoryLogger() };

/** An extension whose tool handler appends a tag to the args, so the final args spell the order. */
const tagger = (name: string, tag = name) =>
  tsExtension(
    name,
    `hermes.on('intercept_tool_call', (e) => ({ action: 'rewrite', value: { order: [...((e.toolArgs.order as string[]) ?? []), '${tag}'] } }));`,
  );

async function order(runtime: Awaited<ReturnType<typeof loadRuntime>>) {
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
    t.interceptToolCall({ toolName: 'x', toolArgs: {} }),
  );
  return (outcome.value as { order?: string[] }).order ?? [];
}

describe('sources, precedence and order', () => {
  it('runs equal priorities global first, then config paths, then project; by name inside each', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  paths: [./more/zz-path, ./more/aa-path]\n',
      'extensions/zz-global.ts': tagger('zz-global'),
      'extensions/aa-global.ts': tagger('aa-global'),
      'more/zz-path/index.ts': tagger('zz-path'),
      'more/aa-path/index.ts': tagger('aa-path'),
    });
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/zz-project.ts': tagger('zz-project'),
      '.hermes/extensions/aa-project.ts': tagger('aa-project'),
    });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(await order(runtime)).toEqual([
      'aa-global',
      'zz-global',
      'aa-path',
      'zz-path',
      'aa-project',
      'zz-project',
    ]);
  });

  it('lets a later source replace a same-named extension, listing the earlier as shadowed', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  paths: [./override/guard.ts]\n',
      'extensions/guard.ts': tagger('guard', 'global'),
      'override/guard.ts': tagger('guard', 'path'),
    });
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/guard/index.ts': tagger('guard', 'project'),
    });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(runtime.extensions.map((e) => [e.source, e.status])).toEqual([
      ['global', 'shadowed'],
      ['path', 'shadowed'],
      ['project', 'enabled'],
    ]);
    expect(await order(runtime)).toEqual(['project']);
    const clash = runtime.diagnostics.filter((d) => d.message.includes('shadowed'));
    expect(clash).toHaveLength(2);
    expect(clash[0]?.message).toMatch(/shadowed by the project extension/);
  });

  it('honours disabled (which wins over everything) and enabled: false', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  disabled: [b]\n',
      'extensions/a.ts': tagger('a'),
      'extensions/b.ts': tagger('b'),
    });
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.json': JSON.stringify({ extensions: { disabled: ['a'] } }),
    });
    const both = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(both.extensions.map((e) => [e.name, e.status])).toEqual([
      ['a', 'disabled'],
      ['b', 'disabled'],
    ]);
    const marker = `${tree()}/ran`;
    const off = tree({
      'config.yaml': 'extensions:\n  enabled: false\n',
      'extensions/loud.mjs': `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default { name: 'loud', setup() {} };`,
    });
    const none = await loadRuntime({ home: off, cwd: tree(), ...quiet });
    expect(none.extensions).toMatchObject([{ name: 'loud', status: 'disabled' }]);
    expect(existsSync(marker)).toBe(false);
  });

  it('skips project-local extensions with project_local: false', async () => {
    const home = tree({ 'config.yaml': 'extensions:\n  project_local: false\n' });
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tagger('local') });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(runtime.extensions).toEqual([]);
  });

  it('reads extensions.global_dir, with ~ and relative paths', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  global_dir: ./my-extensions\n',
      'my-extensions/a.ts': tagger('a'),
      'extensions/ignored.ts': tagger('ignored'),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.extensions.map((e) => e.name)).toEqual(['a']);
  });

  it('honours HERMES_HOME when no home is given', async () => {
    const home = tree({ 'extensions/from-env.ts': tagger('from-env') });
    const previous = process.env.HERMES_HOME;
    process.env.HERMES_HOME = home;
    try {
      const runtime = await loadRuntime({ cwd: tree(), ...quiet });
      expect(runtime.extensions.map((e) => e.name)).toEqual(['from-env']);
    } finally {
      if (previous === undefined) delete process.env.HERMES_HOME;
      else process.env.HERMES_HOME = previous;
    }
  });

  it('picks up an edited extension on the next load in the same process', async () => {
    const home = tree({
      'extensions/live.ts': tagger('live', 'v1'),
      'extensions/live-js.mjs': `export default { name: 'live-js', setup(h) { h.on('transform_user_input', () => ({ action: 'block', value: 'v1' })); } };`,
    });
    const first = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(await order(first)).toEqual(['v1']);
    await new Promise((r) => setTimeout(r, 20));
    write(home, {
      'extensions/live.ts': tagger('live', 'v2'),
      'extensions/live-js.mjs': `export default { name: 'live-js', setup(h) { h.on('transform_user_input', () => ({ action: 'block', value: 'v2' })); } };`,
    });
    const second = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(await order(second)).toEqual(['v2']);
    const input = await second.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('x'));
    expect(blockedOutcome(input).message).toBe('v2');
  });
});
