import { describe } from 'vitest';
import { sandbox, sandboxMissingTest } from '../sandbox.js';
import { escapeAttacks } from './escapes.js';
import { laterProgramAttacks } from './later-programs.js';

/**
 * workflow-guard's sandbox attacked, as its test files declare it (extensions/workflow-guard/
 * sandbox-attacks*.test.ts). A function each file calls, not a test file another imports: the
 * files of a worker share loaded modules (vitest.config.ts, `isolate: false`), so a test file
 * imported a second time declares nothing.
 */
export function sandboxAttacks(): void {
  describe('workflow-guard without a plan: attacks on the sandbox', () => {
    sandboxMissingTest();

    describe.runIf(sandbox.available)('with the sandbox', () => {
      escapeAttacks();
      laterProgramAttacks();
    });
  });
}
