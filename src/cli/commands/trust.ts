import { createInterface } from 'node:readline/promises';
import {
  cannotTrust,
  inspectProjectTrust,
  reviewProject,
  revokeProjectTrust,
  trustProject,
} from '../../trust/project-trust.js';
import { describeChanges } from '../../trust/records.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions trust [--yes] [--revoke]`: shows every file that trusting runs or reads
 * (found without running any of it) and records them; asks on a terminal, needs `--yes` anywhere
 * else. A code config's `paths` are known only once it runs: files they add are shown and asked
 * about again before anything is recorded.
 */
export async function trustCommand(
  context: CommandContext,
  options: { yes?: boolean; revoke?: boolean },
  io: Io,
) {
  if (options.revoke) {
    const current = inspectProjectTrust({ cwd: context.cwd, home: context.home });
    const had = revokeProjectTrust(context.cwd, context.home);
    io.out(
      had
        ? `Trust of ${current.root} revoked; its code and config will be ignored.`
        : `${current.root} was not trusted.`,
    );
    return 0;
  }
  const review = await reviewProject({ cwd: context.cwd, home: context.home });
  if (review.state === 'no-project-code') {
    io.out(`${review.root} has no extensions or config of its own: nothing to trust.`);
    return 0;
  }
  if (review.problems.length > 0) throw new CliError(cannotTrust(review), 1);
  io.out(`Project: ${review.root}`);
  io.out(`State:   ${review.state}${review.trustedAt ? ` (trusted ${review.trustedAt})` : ''}`);
  if (review.changes) io.out(`Changed: ${describeChanges(review.changes, 20)}`);
  io.out(`Trusting it runs this code and applies this config (${review.files.length} file(s)):`);
  for (const file of review.files) io.out(`  ${file}`);
  if (review.computedImports.length > 0) {
    io.out(
      `These import a module by a name computed when they run; only the files above may load: ${review.computedImports.join(', ')}`,
    );
  }
  if (review.configIsCode) {
    io.out('The config is code: the extensions its paths name are shown once it has run.');
  }
  const ask = async (question: string) => {
    if (options.yes) return true;
    if (!io.interactive)
      throw new CliError('not a terminal: re-run with --yes to trust these files', 2);
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question(question);
    prompt.close();
    return /^y(es)?$/i.test(answer.trim());
  };
  if (!(await ask('Trust this project? [y/N] '))) {
    io.out('Not trusted.');
    return 1;
  }
  let declined = false;
  const trusted = await trustProject(context.cwd, context.home, {
    reviewed: review.records,
    async confirmMore(files) {
      io.out(`The config's paths add ${files.length} file(s):`);
      for (const file of files) io.out(`  ${file}`);
      declined = !(await ask('Trust these too? [y/N] '));
      return !declined;
    },
  }).catch((error: Error) => {
    throw new CliError(error.message, 1);
  });
  if (declined || !trusted.trusted) {
    io.out('Not trusted.');
    return 1;
  }
  io.out(
    `Trusted ${trusted.root} (fingerprint ${trusted.fingerprint.slice(0, 16)}). A change to these files untrusts it again.`,
  );
  return 0;
}
