import { Command, CommanderError } from 'commander';
import { COMMAND_HOOK_AGENTS } from '../host/command-hook/agents.js';
import { packageVersion } from '../package-root.js';
import { approvalsListCommand, approvalsRevokeCommand } from './commands/approvals.js';
import { doctorCommand } from './commands/doctor.js';
import {
  HOOK_AGENT_NAMES,
  type HookSettingsOptions,
  hookCommand,
  hookInstallCommand,
  hookUninstallCommand,
} from './commands/hook.js';
import { initCommand } from './commands/init.js';
import { initDeclaredCommand } from './commands/init-declared.js';
import { listCommand } from './commands/list.js';
import { type LogOptions, logCommand } from './commands/log.js';
import { reportCommand } from './commands/report.js';
import { serveCommand } from './commands/serve.js';
import { testCommand } from './commands/test-hook.js';
import { testSuiteCommand } from './commands/test-suite.js';
import { toggleCommand } from './commands/toggle.js';
import { trustCommand } from './commands/trust.js';
import type { UninstallOptions } from './commands/uninstall.js';
import { commandContext } from './context.js';
import { failedCommand } from './failure.js';
import { type Io, processIo } from './io.js';
import { registerDaemon } from './register-daemon.js';
import { registerMcp } from './register-mcp.js';
import { registerTeamCommands } from './register-teams.js';

/**
 * The `hermes` (and `hermes-extensions`) command line. Exit codes: 0 fine, 1 problems found (or
 * blocked, for `test`), 2 bad usage, a config that cannot be read, or a file or folder that cannot
 * be used (`$HERMES_HOME` a file, a folder that cannot be written) — always with a message.
 * `hermes-extensions list` is `hermes extensions list`, for machines where another `hermes` is
 * first on the PATH.
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exitCode = 0;
  /** Wraps a command so its exit code is kept; commander passes the parsed arguments through. */
  // biome-ignore lint/suspicious/noExplicitAny: commander's action arguments are untyped
  const run = <A extends any[]>(command: (...a: A) => Promise<number>) => {
    return async (...a: A) => {
      exitCode = await command(...a);
    };
  };

  const program = new Command('hermes')
    .description('hermes-extensions: hooks that intercept, rewrite and block what an AI agent does')
    .version(packageVersion(), '-v, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    })
    .showHelpAfterError('(add --help for usage)');

  program
    .command('demo')
    .description('one agent session under workflow-guard and module-router, told as a story')
    .action(
      run(async () => {
        const { runDemo } = await import('../demo/run-demo.js');
        return runDemo((line) => io.out(line));
      }),
    );

  const withCwd = (command: Command) =>
    command.option('--cwd <dir>', 'the working directory to act for (default: the current one)');

  const hook = program
    .command('hook')
    .description("run as another agent's command hook")
    .exitOverride();
  for (const agent of Object.values(COMMAND_HOOK_AGENTS)) {
    hook
      .command(agent.name)
      .description(
        `one ${agent.title} hook event on stdin, answered on stdout as its hook protocol expects`,
      )
      .action(run(() => hookCommand(agent, io)));
  }
  const settingsOptions = (command: Command) =>
    withCwd(command)
      .option(
        '--project',
        "the project's shared settings (.claude/settings.json, .codex/hooks.json, .cursor/hooks.json, an agy or OpenCode plugin in the project) instead of the user's; the command runs the project's node_modules/.bin/hermes",
      )
      .option('--local', "Claude Code's .claude/settings.local.json in the project (yours only)")
      .option(
        '--plugin',
        'hermes-agent only: its Python plugin (in $HERMES_HOME/plugins) instead of its shell hooks',
      );
  settingsOptions(hook.command('install <agent>'))
    .description(
      `add the hook to the agent's settings, keeping what is there (agent: ${HOOK_AGENT_NAMES})`,
    )
    .action(run((name: string, o: HookSettingsOptions) => hookInstallCommand(name, o, io)));
  settingsOptions(hook.command('uninstall <agent>'))
    .description("remove the hermes hooks from the agent's settings, keeping every other one")
    .action(run((name: string, o: HookSettingsOptions) => hookUninstallCommand(name, o, io)));
  for (const command of hook.commands) command.exitOverride();

  registerDaemon(program, { run, withCwd, io });
  registerMcp(program, { run, withCwd, io });

  const extensions = program
    .command('extensions')
    .description('see, check, configure and test the installed extensions')
    .exitOverride();
  withCwd(extensions.command('list'))
    .description('every discovered extension, its status, source, version and hooks')
    .option('--json', 'print the extensions as a JSON array')
    .action(run((o: { cwd?: string; json?: boolean }) => listCommand(commandContext(o), o, io)));
  withCwd(extensions.command('doctor'))
    .description('check config, loading, trust and every hook (a dry run); exit 1 on errors')
    .option('--json', 'print the checks as JSON')
    .action(run((o: { cwd?: string; json?: boolean }) => doctorCommand(commandContext(o), o, io)));
  withCwd(extensions.command('report'))
    .description(
      'what each extension in shadow mode would have blocked or asked, read from the audit log',
    )
    .option(
      '--since <when>',
      'only decisions at or after this ISO date or time, or within a duration (30m, 2h, 7d)',
    )
    .option('--file <audit.jsonl>', "read this audit log instead of the audit-log extension's")
    .option('--json', 'print the report as JSON')
    .action(
      run((o: { cwd?: string; since?: string; file?: string; json?: boolean }) =>
        reportCommand(commandContext(o), o, io),
      ),
    );
  withCwd(extensions.command('log'))
    .description(
      'what the guards did: each call blocked, asked about, rewritten or allowed, by which extension, from the audit log (newest last)',
    )
    .option('--session <id>', 'only this session (its id, or the start of it as the table shows)')
    .option('--tool <name>', 'only calls of this tool')
    .option(
      '--decision <kinds>',
      'only these decisions: block, ask, rewrite, pass (comma-separated)',
    )
    .option(
      '--since <when>',
      'only decisions at or after this ISO date or time, or within a duration (30m, 2h, 7d)',
    )
    .option('--limit <n>', `show the newest N entries (default 50; --json: all)`)
    .option('--file <audit.jsonl>', "read this audit log instead of the audit-log extension's")
    .option('--json', 'print the entries and the summary as JSON')
    .action(run((o: LogOptions & { cwd?: string }) => logCommand(commandContext(o), o, io)));
  for (const enable of [true, false]) {
    withCwd(extensions.command(`${enable ? 'enable' : 'disable'} <name>`))
      .description(
        `${enable ? 'enable' : 'disable'} an extension in the YAML config, keeping its comments`,
      )
      .option(
        '--project',
        "edit the project's .hermes/config.yaml instead of $HERMES_HOME/config.yaml",
      )
      .action(
        run((name: string, o: { cwd?: string; project?: boolean }) =>
          toggleCommand(commandContext(o), name, enable, o, io),
        ),
      );
  }
  withCwd(extensions.command('test <hook>'))
    .description('run one hook chain on a payload in a throwaway turn; exit 1 when blocked')
    .option(
      '--input <json>',
      'the payload, e.g. {"toolName":"write","toolArgs":{"path":"src/a.ts"}}',
    )
    .option('--session <id>', 'the session id the turn runs under')
    .option('--json', 'print { outcome } as JSON')
    .action(
      run((hook: string, o: { cwd?: string; input?: string; session?: string; json?: boolean }) =>
        testCommand(commandContext(o), hook, o, io),
      ),
    );
  withCwd(extensions.command('test-suite [name]'))
    .description(
      "run an extension's own tests (all that have some, without NAME) with vitest, nothing installed beside them",
    )
    .action(
      run((name: string | undefined, o: { cwd?: string }) =>
        testSuiteCommand(commandContext(o), name, io),
      ),
    );
  withCwd(extensions.command('init <name>'))
    .description('scaffold a working extension with a test')
    .option(
      '--project',
      "create it in the project's .hermes/extensions/ instead of $HERMES_HOME/extensions/",
    )
    .option(
      '--kind <kind>',
      'a policy declared in config instead of code: cedar, rego, http or judge (docs/policies.md)',
    )
    .action(
      run((name: string, o: { cwd?: string; project?: boolean; kind?: string }) =>
        o.kind === undefined
          ? initCommand(commandContext(o), name, o, io)
          : initDeclaredCommand(commandContext(o), name, o.kind, o, io),
      ),
    );
  withCwd(extensions.command('trust'))
    .description(
      "trust the project's own extensions and config (shows what changed since the last trust first)",
    )
    .option('--yes', 'trust without asking (needed when not on a terminal)')
    .option('--revoke', "forget the project's trust")
    .option('--list', 'list every file, not only what changed since the project was last trusted')
    .action(
      run((o: { cwd?: string; yes?: boolean; revoke?: boolean; list?: boolean }) =>
        trustCommand(commandContext(o), o, io),
      ),
    );

  const approvals = extensions
    .command('approvals')
    .description('the "always for this project" approvals a person gave an ask (docs/cli.md)');
  withCwd(approvals.command('list'))
    .description('list remembered approvals: id, extension, tool and arguments, project')
    .option('--project <dir>', "only this project's (symlinks resolved)")
    .option('--json', 'print JSON')
    .action(
      run((o: { cwd?: string; project?: string; json?: boolean }) =>
        approvalsListCommand(commandContext(o), o, io),
      ),
    );
  withCwd(approvals.command('revoke [id]'))
    .description('forget one remembered approval, or every one with --all')
    .option('--all', 'forget them all (of --project, else of every project)')
    .option('--project <dir>', "only this project's")
    .action(
      run((id: string | undefined, o: { cwd?: string; all?: boolean; project?: string }) =>
        approvalsRevokeCommand(commandContext(o), id, o, io),
      ),
    );

  registerTeamCommands(extensions, { run, withCwd, io });

  withCwd(extensions.command('uninstall'))
    .description(
      "remove every hook, the Hermes plugin, the daemon and this package's files in $HERMES_HOME (docs/uninstall.md)",
    )
    .option('--global', "the user's hooks and $HERMES_HOME's entries (the default)")
    .option('--project', "the project's hooks too (alone: only them)")
    .option('--dry-run', 'only list what it would remove')
    .option('--yes', 'remove without asking (needed when not on a terminal)')
    .action(
      run(async (o: UninstallOptions) => {
        const { uninstallCommand } = await import('./commands/uninstall.js');
        return uninstallCommand(commandContext(o), o, io);
      }),
    );

  withCwd(extensions.command('serve'))
    .description('serve the hooks over JSON-RPC 2.0 on stdin/stdout, for hosts in other languages')
    .option('--stdio', 'speak one JSON message per line on stdin and stdout (the only transport)')
    .option(
      '--max-line-bytes <n>',
      'answer a request line longer than this with a JSON-RPC error and skip it (default 16 MiB)',
    )
    .action(run((o: { cwd?: string; stdio?: boolean; maxLineBytes?: string }) => serveCommand(o)));

  for (const command of extensions.commands) command.exitOverride();
  // `hermes list` is `hermes extensions list`: every extensions command has its short form.
  const shortForms = new Set(extensions.commands.map((command) => command.name()));
  const args = shortForms.has(argv[0] ?? '') ? ['extensions', ...argv] : [...argv];
  try {
    if (args.length === 0) {
      io.out(program.helpInformation().trimEnd());
      return 0;
    }
    if (args.length === 1 && args[0] === 'extensions') {
      io.out(extensions.helpInformation().trimEnd());
      return 0;
    }
    await program.parseAsync(args, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)
        ? 0
        : 2;
    }
    return failedCommand(error, io);
  }
}

/** bin/hermes.js asks, before `main`, whether the project's own copy answers instead. */
export { HANDED_OVER, handOverTarget } from './hand-over.js';

/**
 * `hermes hook <agent>` for an event bin/hermes.js has read already (the hook daemon did not
 * answer it), within what is left of the hook's deadline.
 */
export function answerHook(
  agentName: string,
  stdin: AsyncIterable<string | Buffer>,
  deadlineMs: number,
): Promise<number> {
  const agent = COMMAND_HOOK_AGENTS[agentName];
  if (agent === undefined) throw new Error(`unknown agent "${agentName}"`);
  return hookCommand(agent, processIo(), stdin, deadlineMs);
}
