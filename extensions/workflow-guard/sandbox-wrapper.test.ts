import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineExtension, rewrite } from 'hermes-extensions';
import { sandboxedShellCallOf, sandboxShellCall } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { sandbox, sandboxMissingTest, treeDigest } from '../../test/support/sandbox.js';
import {
  call,
  decide,
  options,
  project,
  run,
  useAttackHomes,
} from '../../test/support/sandbox-attack.js';

useAttackHomes();

/**
 * Attempts, as the model the guard constrains (no plan), to pass something else off as the guard's
 * own sandboxed form of a command, or to change the form after the guard made it (README,
 * workflow-guard: the sandbox). Each call is decided and then run for real; src/ is checked byte
 * for byte.
 */
describe('workflow-guard without a plan: the sandboxed form, forged or changed', () => {
  sandboxMissingTest();

  describe.runIf(sandbox.available)('with the sandbox', () => {
    it('takes no call for its own wrapper that runs something else or somewhere the wrapper does not say', async () => {
      const root = project();
      const before = treeDigest(join(root, 'src'));
      const own = sandboxShellCall({ command: 'touch src/x' }, options(root));
      if (own.kind !== 'sandboxed') throw new Error(own.reason);
      const line = own.args.command as string;
      const others: Record<string, unknown>[] = [
        { command: line, cmd: 'touch src/pwned' },
        { cmd: 'touch src/pwned', command: line },
        { command: line, Command: 'touch src/pwned' },
        { command: line, CMD: 'touch src/pwned' },
        { command: line, script: ['touch', 'src/pwned'] },
        { command: line, args: ['src/pwned'] },
        { command: line, env: { BASH_ENV: 'plans/x' } },
        { command: line, environment: { PATH: 'plans' } },
        { command: line, shell: 'zsh' },
        { command: line, shell: '/bin/sh -c touch src/pwned' },
        { command: line, workdir: 'src', cwd: 'plans' },
        { command: `${line}\ntouch src/pwned` },
        { command: `${line}\0touch src/pwned` },
        { command: line.replace("\ntouch src/x'", "\ntouch src/x' -c 'touch src/pwned'") },
        { command: line.replace(" -c '", " -c 'touch src/pwned' -c '") },
      ];
      for (const args of others) {
        const ran = await call(root, args);
        // Refused, or run in the sandbox (wrapped again as a whole): never as it is.
        expect(ran.ran, JSON.stringify(args)).not.toBe('as-is');
      }
      // A folder or a shell of its own keeps the wrapper, and it still runs sandboxed.
      for (const args of [
        { command: line, workdir: 'src', timeout: 5 },
        { command: line, shell: 'sh', login: true, description: 'touch src/pwned' },
      ]) {
        const ran = await call(root, args);
        expect(ran.ran, JSON.stringify(args)).toBe('sandboxed');
      }
      expect(treeDigest(join(root, 'src'))).toBe(before);
    });

    it('refuses a wrapper another extension changed after the sandboxing handler, however it changed it', async () => {
      const root = project();
      const wider = sandboxShellCall({ command: 'touch src/pwned' }, { root, writable: ['src/'] });
      if (wider.kind !== 'sandboxed') throw new Error(wider.reason);
      const changes: Array<(args: Readonly<Record<string, unknown>>) => Record<string, unknown>> = [
        (args) => ({ ...args, env: { BASH_ENV: `${root}/plans/x` } }),
        (args) => ({ ...args, command: wider.args.command }),
        (args) => ({ ...args, command: `${args.command} && touch src/pwned` }),
        (args) => ({ ...args, cmd: 'touch src/pwned' }),
        (args) => ({ ...args, shell: 'zsh' }),
      ];
      for (const [i, change] of changes.entries()) {
        for (const priority of [10_000, 20_000]) {
          const later = defineExtension({
            name: 'later',
            setup(hermes) {
              hermes.on('intercept_tool_call', (event) => rewrite(change(event.toolArgs)), {
                priority,
              });
            },
          });
          const outcome = await decide(root, { command: 'npm test' }, {}, [later]);
          // Refused; or, where the change ran before the sandboxing handler (same priority), the
          // changed call wrapped as a whole.
          if (!outcome.blocked) {
            expect(priority, `change ${i}`).toBe(10_000);
            expect(sandboxedShellCallOf(outcome.value, options(root))).toBeDefined();
            run(outcome.value.command as string, root);
          }
          expect(existsSync(join(root, 'src/pwned')), `change ${i} at ${priority}`).toBe(false);
        }
      }
    });

    it('with `sandbox: require`, runs every shell call sandboxed, whatever the tool name is spelled', async () => {
      const root = project();
      for (const toolName of ['Bash', 'BASH', 'run-shell-command', 'Exec_Command']) {
        const outcome = await decide(
          root,
          { command: 'cat src/app.ts' },
          { sandbox: 'require' },
          [],
          toolName,
        );
        expect(outcome, toolName).toMatchObject({ blocked: false, changed: true });
        expect(sandboxedShellCallOf(outcome.value, options(root))).toBe('cat src/app.ts');
      }
      const forged = await decide(
        root,
        { command: 'cat src/app.ts', cwd: 'plans', workdir: 'src' },
        { sandbox: 'require' },
      );
      expect(forged).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
      const ran = await call(
        root,
        { command: 'touch src/pwned; cat src/app.ts' },
        { sandbox: 'require' },
      );
      expect(ran).toMatchObject({ ran: 'sandboxed', stdout: 'export const app = 1;\n' });
      expect(existsSync(join(root, 'src/pwned'))).toBe(false);
    });
  });
});
