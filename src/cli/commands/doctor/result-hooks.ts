import { hermesCommand } from '../../../command-name.js';
import { COMMAND_HOOK_AGENTS } from '../../../host/command-hook/agents.js';
import { inspectInstalledHooks } from '../../../host/command-hook/installed.js';
import type { Runtime } from '../../../runtime/runtime.js';
import type { Check } from './check.js';

/**
 * transform_tool_result under the agents' hooks: where a hook cannot hand the model another
 * result (the agent declares neither `replacesResult` nor `replaceToolResult`), the chain does not run, and the model reads
 * every result as the tool returned it. Whether that matters cannot be known without running the
 * handlers, so the extensions that have them are named, per installed hook.
 */
export function resultHookChecks(projectRoot: string, extensions: string[]): Check[] {
  if (extensions.length === 0) return [];
  const who = `${extensions.join(', ')} handle${extensions.length === 1 ? 's' : ''} transform_tool_result`;
  return Object.values(COMMAND_HOOK_AGENTS).flatMap((agent) =>
    agent.replacesResult !== undefined || agent.replaceToolResult !== undefined
      ? []
      : inspectInstalledHooks(agent, projectRoot)
          .filter((hook) => hook.missing.length === 0)
          .map(
            (hook): Check => ({
              level: 'warning',
              subject: `${agent.title} hook (${hook.file})`,
              message: `${who}, which does not run under ${agent.title}'s hooks: a hook there cannot replace a tool's result, so the model gets every result as the tool returned it (nothing redacted, withheld or added)`,
              ...(agent.name === 'hermes-agent'
                ? {
                    fix: `${hermesCommand()} hook install hermes-agent --plugin (the Python plugin runs them)`,
                  }
                : {}),
            }),
          ),
  );
}

/** The enabled extensions with a transform_tool_result handler. */
export function resultHandlers(runtime: Runtime): string[] {
  return runtime.extensions
    .filter(
      (ext) =>
        ext.status === 'enabled' && ext.hooks.some((h) => h.hook === 'transform_tool_result'),
    )
    .map((ext) => ext.name);
}
