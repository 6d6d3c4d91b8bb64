import type { SubagentSpawn } from '../../../hooks/subagent-spawn.js';
import { askAgentVersion, older, type Version } from '../../../host/command-hook/agent-version.js';
import { VERSION_IN_HOOK_ENV_SINCE } from '../../../host/command-hook/agent-version-env.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../../host/command-hook/agents.js';
import { inspectInstalledHooks } from '../../../host/command-hook/installed.js';
import {
  SUBAGENT_COVERAGE,
  subagentCoverage,
} from '../../../host/command-hook/subagent-coverage.js';
import type { Check } from './check.js';

/**
 * One line per agent whose hook checks tool calls (`PreToolUse` installed): whether the
 * installed version's subagents are covered, that is whether each of their tool calls reaches the
 * hook as the subagent's and the hook can tell so (subagent-coverage.ts). The hook reads the
 * version from its environment (agent-version-env.ts); doctor asks the program on the PATH, the
 * one a new session runs. Not covered, workflow-guard refuses starting a subagent before a plan,
 * so the line says so and which version to upgrade to.
 */
export function subagentChecks(projectRoot: string, workflowGuard: boolean): Check[] {
  return Object.values(COMMAND_HOOK_AGENTS).flatMap((agent) => {
    const checking = inspectInstalledHooks(agent, projectRoot).some((hook) =>
      hook.events.includes('PreToolUse'),
    );
    if (!checking) return [];
    if (agent.versionProgram === undefined) return [subagentCheck(agent, undefined, workflowGuard)];
    const asked = askAgentVersion(agent.versionProgram);
    if (!asked.found) return [notOnPath(agent, agent.versionProgram)];
    return [subagentCheck(agent, asked.version, workflowGuard)];
  });
}

/**
 * The program is not on doctor's PATH (the agent may be started another way): doctor cannot ask
 * its version, but nothing is wrong for that. The hook reads the version from each session's
 * environment and fails closed itself when it cannot tell, so there is no upgrade to name.
 */
function notOnPath(agent: CommandHookAgent, program: string): Check {
  return {
    level: 'info',
    subject: `${agent.title} subagents`,
    message: `\`${program}\` is not found on the PATH, so doctor cannot ask which version of ${agent.title} runs; the hook tells from each session whether its subagents' tool calls are covered (when it cannot, a guard that needs to see them refuses starting a subagent). Put \`${program}\` on the PATH for doctor to check it`,
  };
}

function subagentCheck(
  agent: CommandHookAgent,
  version: Version | undefined,
  workflowGuard: boolean,
): Check {
  const subject = `${agent.title} subagents`;
  const coverage = hookCoverage(agent, version);
  if (coverage.covered) {
    return {
      level: 'ok',
      subject,
      message: `${agent.title} ${shown(version)} sends each tool call of its subagents to the hook as the subagent's: each is checked${workflowGuard ? ', and workflow-guard lets a subagent start before a plan' : ''}`,
    };
  }
  // A version not told is not known to be old: no upgrade to name.
  const upgrade = version === undefined ? undefined : firstCoveredVersion(agent);
  return {
    // An agent that tells no version at all (OpenCode): nothing to upgrade to, worth knowing.
    level: agent.versionProgram === undefined ? 'info' : 'warning',
    subject,
    message: `not covered: ${coverage.reason}${workflowGuard ? '; workflow-guard refuses every call that starts a subagent until a plan exists' : '; a guard that needs to see them refuses starting a subagent'}`,
    ...(upgrade === undefined
      ? {}
      : { fix: `upgrade ${agent.title} to ${shown(upgrade)} or later` }),
  };
}

/** The coverage the hook itself would find under `version` (it must read it from its env). */
function hookCoverage(agent: CommandHookAgent, version: Version | undefined): SubagentSpawn {
  if (version === undefined) {
    const why =
      agent.versionProgram === undefined
        ? `${agent.title} tells no version`
        : `\`${agent.versionProgram} --version\` printed no version`;
    return {
      covered: false,
      reason: `${why}, so whether its subagents' tool calls reach the hook cannot be told`,
    };
  }
  const byTable = subagentCoverage(agent, version);
  if (!byTable.covered) return byTable;
  const since = VERSION_IN_HOOK_ENV_SINCE[agent.name];
  if (since === undefined || older(version, since)) {
    return {
      covered: false,
      reason: `${agent.title} ${shown(version)} does not tell its hooks which version runs${since === undefined ? '' : ` (from ${shown(since)} it does)`}, so they cannot tell that its subagents are covered`,
    };
  }
  return byTable;
}

/** The first version from which every row is covered and the hook can tell it, if any. */
function firstCoveredVersion(agent: CommandHookAgent): Version | undefined {
  const rows = SUBAGENT_COVERAGE[agent.name] ?? [];
  let first: Version | undefined;
  for (let index = rows.length - 1; index >= 0 && rows[index]?.covered; index--) {
    first = rows[index]?.from;
  }
  const since = VERSION_IN_HOOK_ENV_SINCE[agent.name];
  if (first === undefined || since === undefined) return undefined;
  return older(first, since) ? since : first;
}

const shown = (version: Version | undefined) => version?.join('.') ?? 'unknown';
