import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ask, block, defineExtension, injectSystem, pass, rewrite } from 'hermes-extensions';
import { groundSandboxAvailability } from 'hermes-extensions/policy';
import secretsGuard from 'hermes-extensions/secrets-guard';
import {
  type GuardTables,
  runGuardCases,
  type TestFunctions,
  testGuard,
} from 'hermes-extensions/testing';
import workflowGuard from 'hermes-extensions/workflow-guard';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { tree, tsExtension } from '../support/fixtures.js';

/** A small guard with one rule per outcome, so each table below has something to hold or break. */
const guard = defineExtension({
  name: 'small-guard',
  configSchema: z.object({ denied: z.array(z.string()).default([]) }),
  setup(hermes) {
    hermes.on('transform_user_input', (event) => {
      if (event.userMessage.trim() === '') return block('Say what you need.');
      if (event.userMessage.startsWith(' ')) return rewrite(event.userMessage.trim());
      return pass();
    });
    hermes.on('before_llm_call', () => injectSystem('Keep changes small.'));
    hermes.on('intercept_tool_call', (event) => {
      if (hermes.config.denied.includes(event.toolName)) {
        return block(`${event.toolName} is not allowed by small-guard.`);
      }
      if (event.toolName === 'deploy') return ask('Deploying needs a person.');
      const path = event.toolArgs.path;
      if (typeof path === 'string' && path.endsWith('.tmp')) {
        return rewrite({ ...event.toolArgs, path: path.replace(/\.tmp$/, '.txt') });
      }
      if (event.toolName === 'explode') throw new Error('the guard has a bug');
      return undefined;
    });
  },
});

const HOLDING: GuardTables = {
  config: { denied: ['delete'] },
  intercept_tool_call: {
    pass: [{ tool: 'read', args: { path: 'a.txt' } }],
    rewrite: [{ tool: 'read', args: { path: 'b.tmp' }, to: { path: 'b.txt' } }],
    block: [{ tool: 'delete', args: { path: 'a.txt' }, message: /not allowed/ }],
    ask: [{ tool: 'deploy', message: 'needs a person' }],
  },
  transform_user_input: {
    pass: ['fix the bug'],
    rewrite: [{ input: '  tidy up', to: 'tidy up' }],
    block: [{ input: '   ', message: 'Say what' }],
  },
  before_llm_call: {
    rewrite: [
      { systemPrompt: 'You code.', to: { systemPrompt: /You code\.\n\nKeep changes small\./ } },
    ],
  },
};

describe('runGuardCases: each case through a real runtime', () => {
  it('holds every case of a table that describes the guard', async () => {
    const results = await runGuardCases(guard, HOLDING);
    expect(results.filter((r) => !r.ok).map((r) => r.failure)).toEqual([]);
    expect(results.map((r) => r.name)).toEqual([
      'intercept_tool_call › pass › read {"path":"a.txt"}',
      'intercept_tool_call › rewrite › read {"path":"b.tmp"}',
      'intercept_tool_call › block › delete {"path":"a.txt"}',
      'intercept_tool_call › ask › deploy {}',
      'transform_user_input › pass › "fix the bug"',
      'transform_user_input › rewrite › "  tidy up"',
      'transform_user_input › block › "   "',
      'before_llm_call › rewrite › request {"systemPrompt":"You code.","messages":[]}',
    ]);
  });

  it('says which case failed, what was expected and what the chain did', async () => {
    const results = await runGuardCases(guard, {
      config: { denied: ['delete'] },
      intercept_tool_call: {
        // Each of these is wrong about the guard.
        pass: [{ tool: 'delete', args: { path: 'a.txt' } }],
        block: [
          { tool: 'read', args: { path: 'a.txt' } },
          { tool: 'delete', message: /forbidden/ },
        ],
        rewrite: [{ tool: 'read', args: { path: 'b.tmp' }, to: { path: 'c.txt' } }],
        ask: [{ name: 'deleting asks first', tool: 'delete' }],
      },
    });
    expect(results.map((r) => r.ok)).toEqual([false, false, false, false, false]);
    expect(results.map((r) => r.failure)).toEqual([
      [
        'intercept_tool_call › pass › delete {"path":"a.txt"}',
        '  intercept_tool_call delete {"path":"a.txt"}',
        '  expected: pass',
        '  got:      block by small-guard: "delete is not allowed by small-guard."',
        '  trace:    small-guard block',
      ].join('\n'),
      [
        'intercept_tool_call › rewrite › read {"path":"b.tmp"}',
        '  intercept_tool_call read {"path":"b.tmp"}',
        '  expected: rewrite to {"path":"c.txt"}',
        '  got:      rewrite by small-guard to {"path":"b.txt"}',
        '  trace:    small-guard rewrite',
      ].join('\n'),
      [
        'intercept_tool_call › block › read {"path":"a.txt"}',
        '  intercept_tool_call read {"path":"a.txt"}',
        '  expected: block',
        '  got:      pass (no extension blocked, rewrote, injected or asked)',
        '  trace:    small-guard pass',
      ].join('\n'),
      [
        'intercept_tool_call › block › delete {}',
        '  intercept_tool_call delete {}',
        '  expected: block, with a message matching /forbidden/',
        '  got:      block by small-guard: "delete is not allowed by small-guard."',
        '  trace:    small-guard block',
      ].join('\n'),
      [
        'deleting asks first',
        '  intercept_tool_call delete {}',
        '  expected: ask',
        '  got:      block by small-guard: "delete is not allowed by small-guard."',
        '  trace:    small-guard block',
      ].join('\n'),
    ]);
  });

  it("fails a block that came from the guard's own crash, not its rule", async () => {
    const [result] = await runGuardCases(guard, {
      intercept_tool_call: { block: [{ tool: 'explode' }] },
    });
    expect(result?.ok).toBe(false);
    expect(result?.failure).toContain('a handler failed: small-guard: ');
    expect(result?.failure).toContain('the guard has a bug');
  });

  it('fails every case of an extension that does not load, saying why', async () => {
    const [result] = await runGuardCases(guard, {
      config: { denied: 'delete' },
      intercept_tool_call: { pass: [{ tool: 'read' }] },
    });
    expect(result?.ok).toBe(false);
    expect(result?.failure).toMatch(
      /extension "small-guard" did not load \(error\): [\s\S]*denied: Invalid input/,
    );
  });

  it('refuses a table that is not one, naming the key', async () => {
    await expect(
      runGuardCases(guard, { intercept_tool_call: { blocked: [{ tool: 'x' }] } } as never),
    ).rejects.toThrow(
      'intercept_tool_call.blocked is not an outcome (intercept_tool_call takes pass, rewrite, block, ask)',
    );
    await expect(
      runGuardCases(guard, { intercept_tool_call: { pass: [{ args: {} }] } } as never),
    ).rejects.toThrow('intercept_tool_call.pass[0] needs "tool"');
  });

  it('runs a sequence in one turn: workflow-guard blocks a write before the plan, not after', async () => {
    const project = tree({ 'src/app.ts': 'x\n', 'plans/.keep': '' });
    const writeFile = (args: Record<string, unknown>) => {
      const file = join(project, String(args.path));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, String(args.content));
    };
    const tables: GuardTables = {
      cwd: project,
      config: { sandbox: 'off' },
      turns: [
        {
          name: 'a write is allowed once the plan is written',
          steps: [
            {
              hook: 'intercept_tool_call',
              tool: 'write',
              args: { path: 'src/app.ts', content: 'y' },
              outcome: 'block',
              message: 'plan',
            },
            {
              hook: 'intercept_tool_call',
              tool: 'write',
              args: { path: 'plans/active/plan.md', content: '1. do it' },
              outcome: 'pass',
              execute: writeFile,
            },
            {
              hook: 'intercept_tool_call',
              tool: 'write',
              args: { path: 'src/app.ts', content: 'y' },
              outcome: 'pass',
            },
          ],
        },
      ],
    };
    const results = await runGuardCases(workflowGuard, tables);
    expect(results.map((r) => [r.name, r.ok, r.failure])).toEqual([
      ['turn › a write is allowed once the plan is written', true, undefined],
    ]);

    // The same turn without the plan's write: the third step is the one that fails.
    const withoutPlan = tree({ 'src/app.ts': 'x\n', 'plans/.keep': '' });
    const steps = (tables.turns?.[0]?.steps ?? []).map((step) =>
      step.hook === 'intercept_tool_call' ? { ...step, execute: undefined } : step,
    );
    const [failed] = await runGuardCases(workflowGuard, {
      ...tables,
      cwd: withoutPlan,
      turns: [{ name: 'no plan', steps }],
    });
    expect(failed?.failure).toMatch(
      /^turn › no plan\n {2}step 3 of 3: intercept_tool_call write \{"path":"src\/app.ts","content":"y"\}\n {2}expected: pass\n {2}got: {6}block by workflow-guard: /,
    );
  });

  it.runIf(groundSandboxAvailability().available)(
    "a call the framework runs in its sandbox, hiding secrets-guard's files, passes unchanged",
    async () => {
      const project = tree({ '.git/HEAD': '', '.env': 'KEY=x\n', 'app.js': '' });
      const results = await runGuardCases(secretsGuard, {
        cwd: project,
        intercept_tool_call: {
          pass: [{ tool: 'Bash', args: { command: 'node app.js' } }],
          block: [{ tool: 'Bash', args: { command: 'cat .env' }, message: /secret file/ }],
        },
      });
      expect(results.map((r) => [r.ok, r.failure])).toEqual([
        [true, undefined],
        [true, undefined],
      ]);
    },
  );

  it('loads the extension from its place on disk, as a path or a file URL', async () => {
    // Its transpile cache goes to $HERMES_HOME, this test's own.
    vi.stubEnv('HERMES_HOME', tree());
    const dir = tree({
      'guard/index.ts': tsExtension(
        'disk-guard',
        "hermes.on('intercept_tool_call', (e) => e.toolName === 'rm' ? block('no rm') : pass());",
      ),
    });
    const results = await runGuardCases(join(dir, 'guard'), {
      intercept_tool_call: { block: [{ tool: 'rm', message: 'no rm' }], pass: [{ tool: 'ls' }] },
    });
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    const byUrl = await runGuardCases(pathToFileURL(join(dir, 'guard/index.ts')), {
      intercept_tool_call: { pass: [{ tool: 'rm' }] },
    });
    expect(byUrl[0]?.failure).toContain('got:      block by disk-guard: "no rm"');
    await expect(runGuardCases(join(dir, 'nothing-here'), {})).rejects.toThrow(
      `testGuard: no single extension at ${join(dir, 'nothing-here')}: extensions.paths entry`,
    );
    vi.unstubAllEnvs();
  });
});

describe('testGuard: one test per case', () => {
  it('registers each case under the extension, and a failing case throws its failure text', async () => {
    const registered: Array<{ suite: string; name: string; body: () => Promise<void> }> = [];
    let suite = '';
    const functions: TestFunctions = {
      describe: (name, body) => {
        suite = name;
        body();
      },
      it: (name, body) => void registered.push({ suite, name, body }),
    };
    await testGuard(
      guard,
      {
        config: { denied: ['delete'] },
        intercept_tool_call: { pass: [{ tool: 'read' }, { tool: 'delete' }] },
      },
      functions,
    );
    expect(registered.map((t) => `${t.suite}: ${t.name}`)).toEqual([
      'small-guard: intercept_tool_call › pass › read {}',
      'small-guard: intercept_tool_call › pass › delete {}',
    ]);
    await expect(registered[0]?.body()).resolves.toBeUndefined();
    await expect(registered[1]?.body()).rejects.toThrow(
      'expected: pass\n  got:      block by small-guard: "delete is not allowed by small-guard."',
    );
  });
});

// Registered with vitest itself, imported by testGuard: these are tests of this file.
await testGuard(guard, HOLDING);
