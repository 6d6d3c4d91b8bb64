import { declaredExtension, runGuardCases, testGuard } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * `hermes-extensions/testing` runs a declared extension with the same tables as a guard in code:
 * `declaredExtension(configFile, name)` builds it as the runtime does.
 */
const config = () =>
  `${tree({
    'no-rm.cedar':
      '@reason("no rm -rf")\nforbid(principal, action, resource is Hermes::Command) when { resource.name like "rm -rf*" };\n',
    'config.yaml': 'extensions:\n  no-rm:\n    kind: cedar\n    policy: no-rm.cedar\n',
  })}/config.yaml`;

describe('declaredExtension', () => {
  it('builds the declared extension for the guard tables, which hold and can fail', async () => {
    const extension = await declaredExtension(config(), 'no-rm');
    const results = await runGuardCases(extension, {
      intercept_tool_call: {
        pass: [{ tool: 'bash', args: { command: 'ls' } }],
        block: [
          { tool: 'bash', args: { command: 'rm -rf /' }, message: 'no rm -rf' },
          // Does not hold: the policy passes it.
          { tool: 'bash', args: { command: 'ls -la' }, message: 'no rm -rf' },
        ],
      },
    });
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
  });

  it('rejects with the load error, naming the file', async () => {
    const file = `${tree({ 'config.yaml': 'extensions:\n  no-rm:\n    kind: cedar\n    policy: missing.cedar\n' })}/config.yaml`;
    await expect(declaredExtension(file, 'no-rm')).rejects.toThrow(/missing\.cedar/);
    await expect(declaredExtension(file, 'other')).rejects.toThrow(/declares no extension "other"/);
  });
});

await testGuard(await declaredExtension(config(), 'no-rm'), {
  intercept_tool_call: {
    pass: [{ tool: 'bash', args: { command: 'git status' } }],
    block: [{ tool: 'bash', args: { command: 'rm -rf build' }, message: 'no rm -rf' }],
  },
});
