import type { Command } from 'commander';
import type { AuditVerifyOptions } from './commands/audit-verify.js';
import { commandContext } from './context.js';
import type { Registering } from './registering.js';

/** `hermes extensions pause | resume | audit verify`: what a team runs (docs/teams.md). */
export function registerTeamCommands(extensions: Command, { run, withCwd, io }: Registering): void {
  extensions
    .command('pause')
    .description(
      'the kill switch: refuse every tool call of every agent until `resume --all` (docs/teams.md)',
    )
    .option('--all', 'every tool call of every agent (required)')
    .option('--reason <text>', 'why, shown in every refusal and by list and doctor')
    .action(
      run(async (o: { all?: boolean; reason?: string }) => {
        const { pauseCommand } = await import('./commands/pause.js');
        return pauseCommand(o, io);
      }),
    );
  extensions
    .command('resume')
    .description('lift `pause --all`: tool calls are judged by the extensions again')
    .option('--all', 'every tool call of every agent (required)')
    .action(
      run(async (o: { all?: boolean }) => {
        const { resumeCommand } = await import('./commands/pause.js');
        return resumeCommand(o, io);
      }),
    );

  const audit = extensions
    .command('audit')
    .description('the audit log as evidence (docs/teams.md)');
  withCwd(audit.command('verify'))
    .description("check the audit log's hash chain; name the first broken, missing or moved line")
    .option('--file <audit.jsonl>', "check this audit log instead of the audit-log extension's")
    .option('--public-key <pem>', 'check every line is signed by this Ed25519 public key')
    .option('--json', 'print the verdict as JSON')
    .action(
      run(async (o: AuditVerifyOptions & { cwd?: string }) => {
        const { auditVerifyCommand } = await import('./commands/audit-verify.js');
        return auditVerifyCommand(commandContext(o), o, io);
      }),
    );
}
