import { resolve } from 'node:path';
import {
  block,
  type ChainStep,
  ConfigError,
  createRuntime,
  defineExtension,
  type HermesApi,
} from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';

const guard = defineExtension({
  name: 'guard',
  version: '1.2.0',
  description: 'Blocks writes outside allowed paths',
  configSchema: z.object({
    allowed_paths: z.array(z.string()).default(['plans/']),
    strict: z.boolean().default(false),
  }),
  setup(hermes) {
    hermes.on('intercept_tool_call', (e) => {
      const path = String(e.toolArgs.path);
      return hermes.config.allowed_paths.some((p) => path.startsWith(p))
        ? undefined
        : block(`no: ${path}`);
    });
  },
});

describe('createRuntime', () => {
  it('feeds each extension its config section, parsed with defaults by its configSchema', async () => {
    const configs: unknown[] = [];
    const spy = defineExtension({
      name: 'spy',
      configSchema: z.object({ level: z.number().default(1), name: z.string().optional() }),
      setup(hermes) {
        configs.push(hermes.config);
      },
    });
    await createRuntime({ extensions: [spy], config: { extensions: { spy: { name: 'x' } } } });
    await createRuntime({ extensions: [spy] });
    expect(configs).toEqual([{ level: 1, name: 'x' }, { level: 1 }]);
  });

  it('uses the config to decide what a guard allows', async () => {
    const { runtime } = await runtimeOf([guard], {
      config: { extensions: { guard: { allowed_paths: ['handoff/'] } } },
    });
    await inTurn(runtime, async (t) => {
      expect((await t.interceptToolCall(write('handoff/x.md'))).blocked).toBe(false);
      expect((await t.interceptToolCall(write('plans/x.md'))).blocked).toBe(true);
    });
  });

  it('a config that fails the schema puts that extension in error, naming the key path', async () => {
    const { runtime } = await runtimeOf(
      [guard, ext('other', (h) => h.on('transform_user_input', () => undefined))],
      {
        config: { extensions: { guard: { allowed_paths: 'plans/' } } },
      },
    );
    const info = runtime.extensions.find((e) => e.name === 'guard');
    expect(info?.status).toBe('error');
    const diagnostic = runtime.diagnostics.find((d) => d.extension === 'guard');
    expect(diagnostic?.severity).toBe('error');
    expect(diagnostic?.message).toMatch(/extensions\.guard\.allowed_paths/);
    // Only the refusal of tool calls while an enabled extension is broken (on_load_error: block).
    expect(runtime.loadFailures.map((f) => f.extension)).toEqual(['guard']);
    expect(runtime.extensions.find((e) => e.name === 'other')?.status).toBe('enabled');
  });

  it('a malformed config rejects with a ConfigError naming the key', async () => {
    const bad = createRuntime({ extensions: [], config: { extensions: { paths: 'x' } } as never });
    await expect(bad).rejects.toBeInstanceOf(ConfigError);
    await expect(bad).rejects.toThrow(/extensions\.paths/);
    await expect(
      createRuntime({ extensions: [], config: { extensions: { guard: 'on' } } as never }),
    ).rejects.toThrow(/extensions\.guard/);
  });

  it('gives extensions cwd as hermes.projectRoot (absolute), process.cwd() by default', async () => {
    const roots: string[] = [];
    const spy = ext('spy', (h) => void roots.push(h.projectRoot));
    await createRuntime({ extensions: [spy], cwd: 'some/project' });
    await createRuntime({ extensions: [spy] });
    expect(roots).toEqual([resolve('some/project'), process.cwd()]);
  });

  it('lists every extension with source, version, description, status, hooks and load time', async () => {
    const { runtime } = await runtimeOf([guard]);
    expect(runtime.extensions).toEqual([
      {
        name: 'guard',
        source: 'inline',
        version: '1.2.0',
        description: 'Blocks writes outside allowed paths',
        status: 'enabled',
        hooks: [{ hook: 'intercept_tool_call', priority: 100 }],
        loadMs: expect.any(Number),
      },
    ]);
  });

  it('isolates failures: a throwing or rejecting setup leaves the others working', async () => {
    const { runtime } = await runtimeOf(
      [
        ext('throws', () => {
          throw new Error('setup exploded');
        }),
        ext('rejects', async (h) => {
          h.on('intercept_tool_call', () => block('half-registered'));
          throw new Error('async setup exploded');
        }),
        guard,
      ],
      { config: { extensions: { on_load_error: 'warn' } } },
    );
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([
      ['guard', 'enabled'],
      ['rejects', 'error'],
      ['throws', 'error'],
    ]);
    expect(runtime.diagnostics.map((d) => d.message)).toEqual(
      expect.arrayContaining(['async setup exploded', 'setup exploded']),
    );
    // Nothing a failed setup registered stays in the chains.
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write('plans/a.md')));
    expect(outcome.trace.map((e) => e.extension)).toEqual(['guard']);
  });

  it('tells onTrace (and the deprecated onStep) each handler decision as it is made', async () => {
    const runtime = await createRuntime({ extensions: [guard] });
    for (const option of ['onTrace', 'onStep'] as const) {
      const steps: ChainStep[] = [];
      const record = (step: ChainStep) => void steps.push(step);
      await runtime.runTurn({ sessionId: option, [option]: record }, (turn) =>
        turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/a.ts' } }),
      );
      expect(steps).toMatchObject([
        { hook: 'intercept_tool_call', extension: 'guard', action: 'block' },
      ]);
    }
  });

  it('rejects unknown hook names with a did-you-mean', async () => {
    const { runtime } = await runtimeOf([
      ext('typo', (h) => h.on('intercept_tool_cal' as never, () => undefined)),
      ext('pi-port', (h) => h.on('tool_call' as never, () => undefined)),
    ]);
    const messages = runtime.diagnostics.map((d) => `${d.extension}: ${d.message}`);
    expect(messages).toContainEqual(
      expect.stringMatching(/typo: .*"intercept_tool_cal".*Did you mean "intercept_tool_call"/),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/pi-port: .*"tool_call".*Did you mean "intercept_tool_call"/),
    );
  });

  it('validates handler options at registration', async () => {
    const { runtime } = await runtimeOf([
      ext('p', (h) => h.on('transform_user_input', () => undefined, { priority: Number.NaN })),
      ext('t', (h) => h.on('transform_user_input', () => undefined, { timeoutMs: -1 })),
      ext('o', (h) =>
        h.on('transform_user_input', () => undefined, { onError: 'ignore' as never }),
      ),
      ext('f', (h) => h.on('transform_user_input', 'not a function' as never)),
    ]);
    expect(runtime.extensions.every((e) => e.status === 'error')).toBe(true);
    const text = runtime.diagnostics.map((d) => d.message).join('\n');
    expect(text).toMatch(/priority must be a finite number/);
    expect(text).toMatch(/timeoutMs must be a positive number/);
    expect(text).toMatch(/onError must be 'pass' or 'block'/);
    expect(text).toMatch(/handler must be a function/);
  });

  it('closes registration when setup ends', async () => {
    let late: HermesApi | undefined;
    await runtimeOf([
      ext('late', (h) => {
        late = h;
      }),
    ]);
    expect(() => late?.on('transform_user_input', () => undefined)).toThrow(/after setup finished/);
  });

  it('waits for async setup', async () => {
    const { runtime } = await runtimeOf([
      ext('slow-setup', async (h) => {
        await new Promise((r) => setTimeout(r, 10));
        h.on('transform_user_input', () => block('ready'));
      }),
    ]);
    expect(runtime.hasHook('transform_user_input')).toBe(true);
  });

  it('honours extensions.disabled and extensions.enabled: false', async () => {
    const a = ext('a', (h) => h.on('transform_user_input', () => undefined));
    const b = ext('b', (h) => h.on('before_llm_call', () => undefined));
    const some = await runtimeOf([a, b], { config: { extensions: { disabled: ['b'] } } });
    expect(some.runtime.extensions.map((e) => e.status)).toEqual(['enabled', 'disabled']);
    expect(some.runtime.hasHook('before_llm_call')).toBe(false);
    const none = await runtimeOf([a, b], { config: { extensions: { enabled: false } } });
    expect(none.runtime.extensions.map((e) => e.status)).toEqual(['disabled', 'disabled']);
    expect(none.runtime.hasHook('transform_user_input')).toBe(false);
  });

  it('warns about config for extensions that do not exist', async () => {
    const { runtime } = await runtimeOf([guard], {
      config: { extensions: { gaurd: { strict: true }, disabled: ['gard'] } },
    });
    const warnings = runtime.diagnostics
      .filter((d) => d.severity === 'warning')
      .map((d) => d.message);
    expect(warnings).toContainEqual(
      expect.stringMatching(/extensions\.gaurd .*did you mean "guard"/),
    );
    expect(warnings).toContainEqual(expect.stringMatching(/"gard".*did you mean "guard"/));
  });

  it('marks an earlier same-named extension as shadowed by the later one', async () => {
    const first = ext('dup', (h) => h.on('transform_user_input', () => block('first')));
    const second = ext('dup', (h) => h.on('transform_user_input', () => block('second')));
    const { runtime } = await runtimeOf([first, second]);
    expect(runtime.extensions.map((e) => e.status)).toEqual(['shadowed', 'enabled']);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('x'));
    expect(blockedOutcome(outcome).message).toBe('second');
  });

  it('reports values that are not extensions without losing the valid ones', async () => {
    const { runtime } = await runtimeOf([
      { name: 'Bad Name', setup() {} } as never,
      null as never,
      guard,
    ]);
    expect(runtime.extensions.filter((e) => e.status === 'error')).toHaveLength(2);
    expect(runtime.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /lower-case words joined by dashes/,
    );
    expect(runtime.extensions.find((e) => e.name === 'guard')?.status).toBe('enabled');
  });

  it("refuses an extension named hermes: it could pass its blocks off as the framework's own", async () => {
    expect(() => defineExtension({ name: 'hermes', setup() {} })).toThrow(
      /name "hermes" is reserved/,
    );
    const { runtime } = await runtimeOf([{ name: 'hermes', setup() {} } as never, guard]);
    expect(runtime.extensions.filter((e) => e.status === 'error')).toHaveLength(1);
    expect(runtime.diagnostics.map((d) => d.message).join('\n')).toMatch(/"hermes" is reserved/);
    expect(runtime.extensions.find((e) => e.name === 'guard')?.status).toBe('enabled');
  });

  it('hasHook tells which hooks have handlers', async () => {
    const { runtime } = await runtimeOf([guard]);
    expect(runtime.hasHook('intercept_tool_call')).toBe(true);
    expect(runtime.hasHook('before_llm_call')).toBe(false);
    expect(runtime.hasHook('no_such_hook')).toBe(false);
  });

  it('hasHook says intercept_tool_call with no handler at all: the protected-ground rule judges every call', async () => {
    // A host that skips a hook hasHook says nobody handles would skip the framework's own rule.
    const { runtime } = await runtimeOf([]);
    expect(runtime.hasHook('intercept_tool_call')).toBe(true);
    expect(runtime.hasHook('transform_tool_result')).toBe(false);
  });

  it('passes hermes.log lines through the runtime logger, prefixed with the extension', async () => {
    const logger = memoryLogger();
    await createRuntime({ logger, extensions: [ext('chatty', (h) => h.log.info('ready'))] });
    expect(logger.lines).toEqual([{ level: 'info', message: '[hermes:chatty] ready' }]);
  });
});

describe('defineExtension', () => {
  it('checks the definition where it is written', () => {
    expect(() => defineExtension({ name: 'Workflow_Guard', setup() {} })).toThrow(/lower-case/);
    expect(() => defineExtension({ name: 'paths', setup() {} })).toThrow(/reserved/);
    expect(() => defineExtension({ name: 'ok' } as never)).toThrow(/setup/);
    expect(() => defineExtension({ name: 'ok', configSchema: {} as never, setup() {} })).toThrow(
      /zod/,
    );
    expect(defineExtension({ name: 'ok-2', setup() {} }).name).toBe('ok-2');
  });
});
