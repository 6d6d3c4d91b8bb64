import { hermesCommand } from '../../../command-name.js';
import { agentEventNames } from '../../../host/command-hook/agent.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../../host/command-hook/agents.js';
import { type InstalledHook, inspectInstalledHooks } from '../../../host/command-hook/installed.js';
import { missingEventsMean } from '../../../host/command-hook/missing-events.js';
import type { Runtime } from '../../../runtime/runtime.js';
import { cwdFlag } from '../../cwd-flag.js';
import type { Check } from './check.js';
import { hookClient } from './hook-client.js';
import { failingHookMeans, hookStartProblem } from './hook-start.js';

/**
 * The hermes hooks installed in Claude Code's and Codex's settings (user-wide and this project's):
 * a command whose paths are gone, or that cannot start hermes, fails on every event — the
 * current command by refusing every tool call, a bare one from an earlier version by letting
 * them all through (both agents run a call whose hook failed). No hook installed, no check.
 */
export function agentHookChecks(projectRoot: string, llmExtensions: LlmHandler[]): Check[] {
  return Object.values(COMMAND_HOOK_AGENTS).flatMap((agent) => {
    const hooks = inspectInstalledHooks(agent, projectRoot);
    const checks = hooks.flatMap((hook): Check[] => {
      const installed = installedHookCheck(agent, hook, projectRoot);
      const checks = [installed];
      // What its calls cost is worth a word only for a hook that runs as it should.
      const client = installed.level === 'ok' ? hookClient(agent, hook) : undefined;
      if (client !== undefined && 'used' in client) installed.message += `; ${client.used}`;
      if (client !== undefined && 'info' in client)
        checks.push({
          level: 'info',
          subject: installed.subject,
          message: client.info,
          fix: client.fix,
        });
      if (hook.missing.length === 0 && llmExtensions.length > 0) {
        checks.push(hookModeLlmCheck(agent, hook.file, llmExtensions));
      }
      return checks;
    });
    if (hooks.length > 0 && hooks.every((hook) => hook.project))
      checks.push(onlyProjectHook(agent, hooks));
    return checks;
  });
}

/**
 * The project form is the project's: a cloned repository commits whatever command it likes in
 * its settings (this one, another, none), so it guards no further than the project is trusted.
 * The guard the user relies on is the hook in their own settings, which the agent runs beside
 * any project's (docs/trust.md).
 */
function onlyProjectHook(agent: CommandHookAgent, hooks: InstalledHook[]): Check {
  const files = [...new Set(hooks.map((hook) => hook.file))].join(', ');
  return {
    level: 'warning',
    subject: `${agent.title} hook`,
    message: `only the project's hook is installed (${files}): a cloned repository controls that command (it could commit any other, or none), so it guards no further than you trust the project; the hook to rely on is the one in your own settings, which ${agent.title} runs beside the project's`,
    fix: `${hermesCommand()} hook install ${agent.name}`,
  };
}

/** Whether an installed hook runs, fails closed when it cannot, and runs for every event it should. */
function installedHookCheck(
  agent: CommandHookAgent,
  hook: InstalledHook,
  projectRoot: string,
): Check {
  const subject = `${agent.title} hook (${hook.file})`;
  const fix = `${hermesCommand()} hook install ${agent.name}${hook.scope === 'user' ? '' : ` --${hook.scope}${cwdFlag(projectRoot)}`}`;
  if (hook.hookFile?.problem !== undefined) {
    // The line reads its program from there and refuses when it is not what install wrote.
    return {
      level: 'error',
      subject,
      message: `its command runs the program in ${hook.hookFile.path}, which ${hook.hookFile.problem}: the hook refuses every tool call in ${agent.title} until it is written again`,
      fix,
    };
  }
  if (hook.missing.length > 0 && hook.project) {
    return {
      level: 'error',
      subject,
      message: `its command runs the project's ${hook.missing.join(' and ')}, which is not installed: ${failingHookMeans(agent, hook)}`,
      fix: 'npm install --save-dev hermes-extensions (in the project)',
    };
  }
  if (hook.missing.length > 0) {
    return {
      level: 'error',
      subject,
      message: `its command runs ${hook.missing.join(' and ')}, which no longer exist: ${failingHookMeans(agent, hook)}`,
      fix,
    };
  }
  const start = hookStartProblem(agent, hook, projectRoot);
  if (start !== undefined && 'problem' in start)
    return { level: 'error', subject, ...start.problem };
  const absent = agent.installEvents.filter((event) => !hook.events.includes(event));
  const notRegistered: Check = {
    level: 'warning',
    subject,
    message: [
      `not registered for ${agentEventNames(agent, absent)}`,
      missingEventsMean(agent, absent),
    ]
      .filter((part) => part !== '')
      .join(': '),
    fix,
  };
  // Only the subagent events, PostToolUseFailure or SessionStart missing (a hook installed before
  // they were) is less than a hook that fails open: that is told first.
  const lesser = (event: string) =>
    event.startsWith('Subagent') || event === 'PostToolUseFailure' || event === 'SessionStart';
  if (absent.some((event) => !lesser(event))) return notRegistered;
  // After the events: a hook that leaves tool calls out is worse, and install mends both.
  if (!hook.failsClosed) {
    return {
      level: 'warning',
      subject,
      message: `its command runs hermes bare, as earlier versions installed it: were hermes ever unable to start (no node_modules, a moved package, no node), ${agent.title} would let every call through; the current command refuses them`,
      fix,
    };
  }
  if (!hook.project && !hook.pinned) {
    return {
      level: 'warning',
      subject,
      message: `its command was installed by an earlier version: it takes $HERMES_HOME, HERMES_TRUST_PROJECT or the hook daemon's folder (HERMES_DAEMON_DIR, TMPDIR) from the environment ${agent.title} gives it, which a project's settings or the agent can set (moving your extensions to the project's, trusting it, or sending every call to a daemon of the agent's own); the current command carries your $HERMES_HOME and daemon folder and unsets the rest`,
      fix,
    };
  }
  if (absent.length > 0) return notRegistered;
  const unapproved = agent.unapprovedEvents?.(hook.command, hook.events) ?? [];
  if (unapproved.length > 0) {
    return {
      level: 'error',
      subject,
      message: `${agent.title} has not been allowed to run it for ${unapproved.join(', ')}: it asks once, in a terminal, and until then skips it, so nothing is checked there (without a terminal, silently)`,
      fix: `run ${agent.name === 'hermes-agent' ? 'hermes' : agent.title} in a terminal once and allow the hermes hooks (or once with --accept-hooks)`,
    };
  }
  const note = start === undefined ? '' : `: ${start.note}`;
  return {
    level: 'ok',
    subject,
    message: `runs the hermes hook for ${agentEventNames(agent, hook.events)}${note}`,
  };
}

/**
 * before_llm_call in hook mode (docs/command-hooks.md): injections reach the model as
 * context; a rewrite of the messages cannot be expressed, and neither can `restrictTools` (the
 * agent offers its own tools, and tells a hook not even which). Whether a handler rewrites or
 * restricts cannot be known without running it, so the extensions that handle the hook are named:
 * a warning for the user's own (theirs to change), worth knowing only when every one is shipped,
 * since the shipped guards hold at call time what they restrict before it (workflow-guard hides
 * tools as prevention; its intercept_tool_call is the check) and no one could act on it.
 */
function hookModeLlmCheck(agent: CommandHookAgent, file: string, handlers: LlmHandler[]): Check {
  const extensions = handlers.map((handler) => handler.name);
  const where =
    agent.afterToolEvents.length === 0
      ? 'at the prompt only'
      : agent.afterToolEvents.includes('PostToolBatch')
        ? 'at the prompt and after each batch of tool results'
        : 'at the prompt and after each tool result';
  return {
    level: handlers.every((handler) => handler.shipped) ? 'info' : 'warning',
    subject: `${agent.title} hook (${file})`,
    message: `${extensions.join(', ')} handle${extensions.length === 1 ? 's' : ''} before_llm_call, which runs ${where}: ${agent.takesContext === false ? `injections are not delivered (${agent.title} takes no context from a hook)` : 'injections are delivered as context'}; if it rewrites messages, that is not applied in hook mode; restrictTools has no effect under ${agent.title} hooks (the call-time checks still apply)`,
  };
}

/** An enabled extension with a before_llm_call handler, and whether it is a shipped one. */
export interface LlmHandler {
  name: string;
  shipped: boolean;
}

export function llmHandlers(runtime: Runtime): LlmHandler[] {
  return runtime.extensions
    .filter(
      (ext) => ext.status === 'enabled' && ext.hooks.some((h) => h.hook === 'before_llm_call'),
    )
    .map((ext) => ({ name: ext.name, shipped: ext.source === 'shipped' }));
}
