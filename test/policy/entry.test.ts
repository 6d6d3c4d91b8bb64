import * as root from 'hermes-extensions';
import * as policy from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';

describe('hermes-extensions/policy', () => {
  it('is where the guard-author helpers live; the root still re-exports each one until 0.2', () => {
    const helpers = Object.entries(policy);
    expect(helpers.map(([name]) => name)).toEqual(
      expect.arrayContaining(['analyzeShell', 'extractToolPaths', 'READ_ONLY_COMMANDS']),
    );
    const fromRoot = new Map(Object.entries(root));
    // Helpers added since 0.1 live only in the subpath: the root's copies are for 0.1 users.
    const since01 = new Set([
      'STANDARD_STREAMS',
      'resetSandboxAvailability',
      'sandboxAvailability',
      'sandboxCommand',
      'sandboxedCommandOf',
      'sandboxedShellCallOf',
      'sandboxRuntimeCli',
      'sandboxRunning',
      'sandboxShellCall',
      'sandboxRefusedWrite',
      'withAdvice',
      'groundSandboxAvailability',
      'groundSandboxCall',
      'groundSandboxedCallOf',
      'mayBeSandboxLine',
      'mayBeSandboxed',
      'bwrapSandboxedCallOf',
      'configuresLaterProgram',
      'resetGroundSandboxAvailability',
      'argumentTexts',
      'looksLikePath',
      'pathReadings',
      'projectEntryNames',
      'programName',
      'unwrapCommand',
      'modelCallBudget',
      'toolCallBudget',
      'refusalLimit',
      'mapStrings',
      'callLinks',
      'gitApplyCommand',
      'patchCommand',
      'readPatchFile',
      'judgeGround',
      'protectedGround',
      'protectedHermesCommand',
      'protectedHit',
      'normalizeToolName',
      'READER_TOOL_NAMES',
      'WRITER_TOOL_NAMES',
    ]);
    for (const [name, helper] of helpers) {
      if (since01.has(name)) expect(fromRoot.has(name), name).toBe(false);
      else expect(fromRoot.get(name), name).toBe(helper);
    }
  });
});
