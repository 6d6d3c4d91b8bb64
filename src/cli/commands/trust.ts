import { createInterface } from 'node:readline/promises';
import {
  inspectProjectTrust,
  revokeProjectTrust,
  trustProject,
} from '../../trust/project-trust.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions trust [--yes] [--revoke]`: shows the project code that trusting runs (files
 * and fingerprint) and records it; asks on a terminal, needs `--yes` anywhere else.
 */
export async function trustCommand(
  context: CommandContext,
  options: { yes?: boolean; revoke?: boolean },
  io: Io,
) {
  const current = inspectProjectTrust({ cwd: context.cwd, home: context.home });
  if (options.revoke) {
    const had = revokeProjectTrust(context.cwd, context.home);
    io.out(
      had
        ? `Trust of ${current.root} revoked; its code and config will be ignored.`
        : `${current.root} was not trusted.`,
    );
    return 0;
  }
  if (current.state === 'no-project-code') {
    io.out(`${current.root} has no extensions or config of its own: nothing to trust.`);
    return 0;
  }
  io.out(`Project: ${current.root}`);
  io.out(`State:   ${current.state}${current.trustedAt ? ` (trusted ${current.trustedAt})` : ''}`);
  io.out(`Trusting it runs this code and applies this config (${current.files.length} file(s)):`);
  for (const file of current.files) io.out(`  ${file}`);
  if (!options.yes) {
    if (!io.interactive)
      throw new CliError('not a terminal: re-run with --yes to trust these files', 2);
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question('Trust this project? [y/N] ');
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.out('Not trusted.');
      return 1;
    }
  }
  const trusted = await trustProject(context.cwd, context.home);
  io.out(
    `Trusted ${trusted.root} (fingerprint ${trusted.fingerprint.slice(0, 16)}). A change to these files untrusts it again.`,
  );
  return 0;
}
