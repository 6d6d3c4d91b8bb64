import { describe, expect, it } from 'vitest';
import { withinManagedRules } from '../../src/runtime/managed-rules.js';

/** What a lower layer's config loses under the managed layer (src/runtime/managed-rules.ts). */
const rules = (section = {}) => ({
  file: '/etc/hermes-extensions/config.yaml',
  section,
  names: new Set(['managed-guard']),
});

describe('the lower layers under the managed layer', () => {
  it('lose a disable, a mode and any setting of a managed extension, and keep the rest', () => {
    const { layers, diagnostics } = withinManagedRules(
      [
        {
          file: '/home/u/.hermes/config.yaml',
          config: {
            extensions: {
              disabled: ['managed-guard', 'mine'],
              'managed-guard': { mode: 'shadow' },
              mine: { mode: 'shadow' },
            },
          },
        },
        {
          file: '/p/.hermes/config.yaml',
          config: { extensions: { 'managed-guard': { allow: ['*'] } } },
        },
      ],
      rules(),
    );
    expect(layers.map((l) => l.config.extensions)).toEqual([
      { disabled: ['mine'], mine: { mode: 'shadow' } },
      {},
    ]);
    expect(diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'MANAGED_OVERRIDE',
        '/home/u/.hermes/config.yaml',
        'extensions.disabled: [managed-guard] in /home/u/.hermes/config.yaml is ignored: /etc/hermes-extensions/config.yaml manages it',
      ],
      [
        'MANAGED_OVERRIDE',
        '/home/u/.hermes/config.yaml',
        'extensions.managed-guard.mode: shadow in /home/u/.hermes/config.yaml is ignored: /etc/hermes-extensions/config.yaml manages it',
      ],
      [
        'MANAGED_OVERRIDE',
        '/p/.hermes/config.yaml',
        'extensions.managed-guard in /p/.hermes/config.yaml is ignored: /etc/hermes-extensions/config.yaml manages it',
      ],
    ]);
  });

  it('lose a chain limit shorter than the managed one, or any where the managed layer sets none', () => {
    const { layers, diagnostics } = withinManagedRules(
      [
        {
          file: '/u/config.yaml',
          config: {
            extensions: {
              chain_timeout_ms: {
                intercept_tool_call: 100,
                before_llm_call: 9000,
                transform_tool_result: 5,
              },
            },
          },
        },
      ],
      rules({ chain_timeout_ms: { intercept_tool_call: 3000, before_llm_call: 3000 } }),
    );
    expect(layers[0]?.config.extensions?.chain_timeout_ms).toEqual({ before_llm_call: 9000 });
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^extensions\.chain_timeout_ms\.intercept_tool_call in/),
      expect.stringMatching(/^extensions\.chain_timeout_ms\.transform_tool_result in/),
    ]);
  });

  it('lose on_load_error: warn while the managed layer has extensions, and leave everything without any', () => {
    const lower = [
      {
        file: '/u/config.yaml',
        config: { extensions: { on_load_error: 'warn' as const, disabled: ['x'] } },
      },
    ];
    const managing = withinManagedRules(lower, rules());
    expect(managing.layers[0]?.config.extensions).toEqual({ disabled: ['x'] });
    expect(managing.diagnostics).toHaveLength(1);
    const none = withinManagedRules(lower, { ...rules(), names: new Set<string>() });
    expect(none.layers[0]?.config.extensions).toEqual(lower[0]?.config.extensions);
    expect(none.diagnostics).toEqual([]);
  });

  it('lose enabled, project_local and no_sandbox where the managed config sets them', () => {
    const { layers, diagnostics } = withinManagedRules(
      [
        {
          file: '/u/config.yaml',
          config: { extensions: { no_sandbox: 'run', project_local: true, enabled: false } },
        },
      ],
      rules({ no_sandbox: 'refuse', project_local: true }),
    );
    expect(layers[0]?.config.extensions).toEqual({ enabled: false });
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^extensions\.no_sandbox: run in \/u\/config\.yaml is ignored/),
    ]);
  });
});
