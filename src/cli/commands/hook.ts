import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { findProjectRoot, hermesHome } from '../../config/locations.js';
import { removeEmptyFolders } from '../../fs/empty-folders.js';
import { agentEventNames } from '../../host/command-hook/agent.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../host/command-hook/agents.js';
import { installPins } from '../../host/command-hook/hook-env.js';
import {
  hookFile,
  hookFileText,
  hookLine,
  writeHookFile,
} from '../../host/command-hook/hook-line.js';
import { type Pins, wrappedHookCommand } from '../../host/command-hook/hook-wrapper.js';
import { inspectInstalledHooks } from '../../host/command-hook/installed.js';
import { missingEventsMean } from '../../host/command-hook/missing-events.js';
import { projectHoldingPackage } from '../../host/command-hook/package-place.js';
import { settingsFormat } from '../../host/command-hook/settings/formats.js';
import { stderrLogger } from '../../log/logger.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { cwdFlag } from '../cwd-flag.js';
import { CliError, type Io } from '../io.js';

/** The agents `hermes hook <agent>` and `hermes hook install <agent>` take, for messages. */
export const HOOK_AGENT_NAMES = Object.keys(COMMAND_HOOK_AGENTS).join(', ');

/**
 * `hermes hook <agent>`: one hook event of the agent on stdin, answered on stdout as its hook
 * protocol expects (src/host/command-hook/hook-process.ts). `stdin` and `deadlineMs` are given
 * when bin/hermes.js has read the event already and the hook daemon did not answer it in time.
 */
export async function hookCommand(
  agent: CommandHookAgent,
  io: Io,
  stdin: AsyncIterable<string | Buffer> = process.stdin,
  deadlineMs?: number,
): Promise<number> {
  const { answerHookProcess } = await import('../../host/command-hook/hook-process.js');
  const { onProcessCrash } = await import('../../host/process-crash.js');
  return answerHookProcess(
    agent,
    {
      stdin,
      out: (text) => io.out(text),
      err: (text) => io.err(text),
      logger: stderrLogger,
      // Once stdout has taken the answer: a process.exit right away could cut it short.
      exit: (code) => process.stdout.write('', () => process.exit(code)),
      crashes: (listener) => onProcessCrash(listener),
      exiting: (listener) =>
        process.once('exit', () => {
          const code = listener();
          if (code !== undefined) process.exitCode = code;
        }),
    },
    deadlineMs,
  );
}

/** `--project` and `--local`, as `hook install` and `hook uninstall` take them. */
export interface HookSettingsOptions {
  cwd?: string;
  project?: boolean;
  local?: boolean;
  /** The Hermes agent's Python plugin instead of its shell hooks (hook-hermes-plugin.ts). */
  plugin?: boolean;
}

/**
 * `hermes hook install <agent> [--project | --local]`: adds the hook to the agent's settings —
 * the user's; the project's shared ones under `--cwd`, with a command that names no path of this
 * machine (the project's own `node_modules/.bin/hermes`), so they can be committed; or, with
 * `--local`, Claude Code's `settings.local.json` there, which is the user's own — keeping what is
 * there.
 */
export async function hookInstallCommand(
  name: string,
  options: HookSettingsOptions,
  io: Io,
): Promise<number> {
  const agent = agentNamed(name);
  refuseOffPosix(agent);
  if (options.plugin) {
    pluginOnlyFor(agent, options);
    const { installHermesPluginCommand } = await import('./hook-hermes-plugin.js');
    return installHermesPluginCommand(agent, io);
  }
  const { file, project, shared } = settingsTarget(agent, options);
  const format = settingsFormat(agent);
  if (agent.name === 'hermes-agent') {
    const { replaceHermesPlugin } = await import('./hook-hermes-plugin.js');
    replaceHermesPlugin(io);
  }
  const bin = join(PACKAGE_ROOT, 'bin', 'hermes.js');
  // The agent's settings only: $HERMES_HOME and the daemon's folder are not read or made here,
  // only named: the user form carries them, absolute, as this environment (the user's) places
  // them, so that the environment a project or the agent gives the hook cannot move them; so too
  // the other user folders protected ground is placed by, where the user set them.
  // Either form fails closed when hermes cannot run (src/host/command-hook/hook-wrapper.ts).
  const argv = [process.execPath, bin, 'hook', agent.name];
  const pins = installPins();
  const command = shared ? agent.projectCommand : wrappedHookCommand(agent.name, argv, pins);
  const commandFor = shared ? undefined : shortLines(agent, argv, pins);
  const { installableEvents, installedAgentVersion } = await import(
    '../../host/command-hook/agent-version.js'
  );
  const version =
    agent.versionProgram === undefined ? undefined : installedAgentVersion(agent.versionProgram);
  const { events, leftOut } = installableEvents(agent, version);
  if (leftOut.length > 0)
    io.err(
      `Warning: ${agent.title} ${version?.join('.')} would ignore every hook of a settings file that names ${leftOut.join(', ')}, so ${leftOut.length === 1 ? 'it is' : 'they are'} not registered: ${missingEventsMean(agent, leftOut)}. Upgrade ${agent.title} and run this again.`,
    );
  // First, so that a file install refuses is not written at all.
  const { added, updated } = failingWith1(() =>
    format.install(agent, { file, command, commandFor, events }),
  );
  if (leftOut.length > 0) {
    // A hook an earlier install registered for them would make that version ignore the file.
    failingWith1(() => format.uninstall(agent, file, leftOut));
  }
  if (added.length > 0)
    io.out(`Added the hermes hook for ${agentEventNames(agent, added)} to ${file}.`);
  if (updated.length > 0)
    io.out(`Updated the hermes hook's command for ${agentEventNames(agent, updated)} in ${file}.`);
  if (added.length + updated.length === 0)
    io.out(`${file} already runs the hermes hook; nothing changed.`);
  else if (agent.afterInstall) io.out(agent.afterInstall);
  // The agent runs every file's hooks: the same hook in two of them runs twice on every event.
  for (const other of inspectInstalledHooks(agent, project)) {
    if (other.file === file) continue;
    if (shared && other.scope === 'user') {
      // Yours is the guard to rely on: a project's settings are the project's (docs/trust.md).
      io.out(
        `${other.file} runs the hermes hook too, so ${agent.title} would run it twice; keep that one, yours (a project's settings are the project's to change): leave both, or take this one out with ${hermesCommand()} hook uninstall ${agent.name} --project${cwdFlag(project)}`,
      );
      continue;
    }
    const flag = other.scope === 'user' ? '' : ` --${other.scope}${cwdFlag(project)}`;
    io.out(
      `${other.file} runs the hermes hook too, so ${agent.title} would run it twice; remove one: ${hermesCommand()} hook uninstall ${agent.name}${flag}`,
    );
  }
  const holder = shared ? undefined : projectHoldingPackage(PACKAGE_ROOT);
  if (holder !== undefined)
    io.err(
      `Warning: your ${agent.title} hook runs the hermes-extensions in ${PACKAGE_ROOT}, a package of the project ${holder}: an agent working in that project may change it, and with it what answers your hooks in every project (docs/trust.md, Protected ground). Install hermes-extensions apart from any project (npm install -g hermes-extensions) and run ${hermesCommand()} hook install ${agent.name} again with that copy.`,
    );
  if (shared && project !== undefined) {
    const projectBin = join(agent.projectCommandRoot(project), 'node_modules', '.bin', 'hermes');
    if (!existsSync(projectBin))
      io.err(
        `Warning: ${projectBin} does not exist yet. The project's hook runs the project's own hermes-extensions: add it (npm install --save-dev hermes-extensions); until then the hook refuses every tool call in ${agent.title}, saying so.`,
      );
  }
  return 0;
}

/**
 * Where the agent keeps a command per event and runs it through a shell (Claude Code's and Codex's
 * hooks-json), the user form is one short line per event that runs the program from a file on
 * protected ground (src/host/command-hook/hook-line.ts): the file is written first, whole, so no
 * line ever names a file that is not there yet. Undefined: the program stays in the command line.
 */
function shortLines(
  agent: CommandHookAgent,
  argv: readonly string[],
  pins: Pins,
): ((event: string) => string) | undefined {
  if (agent.settingsFormat !== 'hooks-json') return undefined;
  const text = hookFileText(agent.name, argv, pins);
  if (text === undefined) return undefined;
  const file = hookFile(pins.HERMES_HOME as string, agent.name);
  failingWith1(() => writeHookFile(file, text));
  const fix = `run ${hermesCommand()} hook install ${agent.name}`;
  return (event) => hookLine(file, event, text, fix);
}

/**
 * `hermes hook uninstall <agent> [--project | --local]`: removes the hermes hooks from the same
 * settings file install writes, keeping every other hook and setting.
 */
export async function hookUninstallCommand(
  name: string,
  options: HookSettingsOptions,
  io: Io,
): Promise<number> {
  const agent = agentNamed(name);
  if (options.plugin) {
    pluginOnlyFor(agent, options);
    const { uninstallHermesPluginCommand } = await import('./hook-hermes-plugin.js');
    return uninstallHermesPluginCommand(io);
  }
  const { file, project } = settingsTarget(agent, options);
  const { removed } = failingWith1(() => settingsFormat(agent).uninstall(agent, file));
  io.out(
    removed.length > 0
      ? `Removed the hermes hook for ${agentEventNames(agent, removed)} from ${file}.`
      : `${file} has no hermes hook; nothing changed.`,
  );
  // A file left with nothing in it is removed by its format; the folders install made for it
  // (`.claude/`, `.opencode/plugins/`) go too when nothing else is in them.
  if (removed.length > 0 && !existsSync(file)) {
    const folders = removeEmptyFolders(dirname(file), project ?? homedir());
    if (folders.length > 0) io.out(`Removed ${folders.join(', ')}, left empty.`);
  }
  return 0;
}

/**
 * The hook command install writes is a POSIX `sh` line, and the sandbox runs on Linux and macOS.
 * On Windows an agent may run it in PowerShell (Claude Code does without Git Bash), where it
 * errors, and a hook that errors lets the call run: install refuses rather than write a guard
 * that fails open. The Hermes plugin too: the guarantees it gives rest on the same ground.
 */
function refuseOffPosix(agent: CommandHookAgent): void {
  if (process.platform !== 'win32') return;
  throw new CliError(
    `the hermes hook guards ${agent.title} on Linux and macOS only, not on Windows: its command is a POSIX sh line, which ${agent.title} may run in a shell that cannot run it (PowerShell), and a hook that fails there lets the call run. Nothing was written. Run ${agent.title} and hermes in WSL (Windows Subsystem for Linux), where they are on Linux.`,
    1,
  );
}

/** `--plugin` is the Hermes agent's, user-wide (Hermes loads plugins from its home). */
function pluginOnlyFor(agent: CommandHookAgent, options: HookSettingsOptions): void {
  if (agent.name !== 'hermes-agent')
    throw new CliError(`--plugin is for hermes-agent; ${agent.title} takes command hooks`, 2);
  if (options.project || options.local)
    throw new CliError(
      "--plugin goes into the Hermes agent's home, not a project: leave out --project and --local",
      2,
    );
}

function agentNamed(name: string): CommandHookAgent {
  const agent = COMMAND_HOOK_AGENTS[name];
  if (agent === undefined)
    throw new CliError(`unknown agent "${name}"; supported: ${HOOK_AGENT_NAMES}`, 2);
  return agent;
}

/**
 * The settings file the options name, the project it belongs to, and whether it is shared with
 * the project (its command must then name no path of this machine). The project is the one the
 * folder belongs to, as every other command finds it (findProjectRoot), then the folder the
 * agent reads the project's hooks in (`projectCommandRoot`: Codex's git root): a settings file
 * in a subfolder would never be read.
 */
export function settingsTarget(
  agent: CommandHookAgent,
  options: HookSettingsOptions,
): { file: string; project?: string; shared: boolean } {
  const user = agent.settingsFile(undefined);
  if (user === undefined) throw new Error(`${agent.title} declares no user settings file`);
  if (!options.project && !options.local) return { file: user, shared: false };
  const project = agent.projectCommandRoot(
    findProjectRoot(resolve(options.cwd ?? process.cwd()), hermesHome()),
  );
  const shared = agent.settingsFile(project);
  if (shared === undefined)
    throw new CliError(
      `${agent.title} reads hooks only from ${user}, which is yours: install without --project or --local`,
      2,
    );
  if (!options.local) return { file: shared, project, shared: true };
  const file = agent.localSettingsFile(project);
  if (file === undefined)
    throw new CliError(
      `${agent.title} has no settings of your own inside a project: it reads hooks only from ${user} (yours, without --local) and ${shared} (the project's, --project)`,
      2,
    );
  return { file, project, shared: false };
}

/** A settings file that cannot be read or written is a problem (exit 1), named by the error. */
function failingWith1<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
}
