import type { Command } from 'commander';
import { daemonStatusCommand, daemonStopCommand } from './commands/daemon.js';
import type { Registering } from './registering.js';

/** `hermes daemon run | status | stop` (docs/command-hooks.md, The hook daemon). */
export function registerDaemon(program: Command, { run, io }: Registering): void {
  const daemon = program
    .command('daemon')
    .description(
      'the warm runtime that answers `hermes hook` (docs/command-hooks.md, The hook daemon)',
    )
    .exitOverride();
  daemon
    .command('run')
    .description('run the hook daemon in the foreground (`hermes hook` starts it when needed)')
    .option(
      '--warm',
      "read a session's start from stdin, as `hermes hook` hands it over, and load its runtime",
    )
    .action(
      run(async (o: { warm?: boolean }) =>
        (await import('./commands/daemon-run.js')).daemonRunCommand(io, o),
      ),
    );
  daemon
    .command('status')
    .description("the user's hook daemons: pid, socket, uptime, projects, events answered")
    .option('--json', 'print them as a JSON array')
    .action(run((o: { json?: boolean }) => daemonStatusCommand(o, io)));
  daemon
    .command('stop')
    .description("stop this environment's hook daemon")
    .option('--all', 'stop every hook daemon of this user')
    .action(run((o: { all?: boolean }) => daemonStopCommand(o, io)));
  for (const command of daemon.commands) command.exitOverride();
}
