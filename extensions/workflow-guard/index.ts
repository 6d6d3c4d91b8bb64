import {
  analyzeShell,
  block,
  defineExtension,
  extractToolPaths,
  injectSystem,
  injectUser,
  isWithin,
  resolveProjectPath,
  rewrite,
  shellCommandOf,
} from 'hermes-extensions';
import { blockText, guardrailText, reminderText, workflowGuardConfig } from './config.js';
import { isImplementationRequest } from './intent.js';
import { hasValidPlan } from './plan.js';

/** What the guard learned in this turn, kept in the per-turn state under its name. */
interface GuardState {
  /** Tool calls it blocked. */
  blocked: number;
  /** The user's request was rewritten to the plan command. */
  redirected: boolean;
}

/**
 * Plan before edit, enforced: until a non-blank plan exists at `plan_path`, implementation
 * requests are redirected to the plan command, each model request is reminded to plan, and tool
 * calls that would write outside `allowed_paths` are blocked with what to do instead.
 */
export default defineExtension({
  name: 'workflow-guard',
  version: '1.0.0',
  description: 'No edits before a plan exists: redirects, reminds and blocks until there is one',
  configSchema: workflowGuardConfig,
  setup(hermes) {
    const config = hermes.config;
    const root = hermes.projectRoot;
    const planned = () => hasValidPlan(root, config.plan_path);
    const stateOf = (state: Record<string, unknown>): GuardState => {
      state['workflow-guard'] ??= { blocked: 0, redirected: false } satisfies GuardState;
      return state['workflow-guard'] as GuardState;
    };

    hermes.on(
      'transform_user_input',
      (event) => {
        if (planned() || !isImplementationRequest(event.userMessage)) return undefined;
        stateOf(event.state).redirected = true;
        return rewrite(`${config.plan_command} ${event.userMessage.trim()}`, {
          workflowGuard: 'redirected to the plan command',
        });
      },
      { priority: 10 },
    );

    hermes.on(
      'before_llm_call',
      () => (planned() ? injectSystem(guardrailText(config)) : injectUser(reminderText(config))),
      { priority: 10 },
    );

    const blockedTools = new Set(config.blocked_tools);
    hermes.on(
      'intercept_tool_call',
      (event) => {
        if (planned()) return undefined;
        const problem = blockedTools.has(event.toolName)
          ? checkWrite(event.toolName, event.toolArgs)
          : checkShell(event.toolArgs);
        if (problem === undefined) return undefined;
        stateOf(event.state).blocked++;
        return block(blockText(config, problem), { workflowGuard: problem });
      },
      { priority: 10, tools: [...config.blocked_tools, ...config.shell_tools] },
    );

    /** Why a write tool may not run now, or undefined when every path it writes is allowed. */
    function checkWrite(tool: string, args: Readonly<Record<string, unknown>>): string | undefined {
      const paths = extractToolPaths(args);
      if (paths.length === 0) return `${tool} names no file it would write`;
      return outsideAllowed(tool, paths);
    }

    function checkShell(args: Readonly<Record<string, unknown>>): string | undefined {
      const command = shellCommandOf(args);
      if (command === undefined) return 'the shell call has no command to check';
      const analysis = analyzeShell(command, config.shell_read_only);
      if (analysis.kind === 'opaque')
        return `the command's effect cannot be checked (${analysis.reason})`;
      return analysis.writes.length === 0
        ? undefined
        : outsideAllowed('the command', analysis.writes);
    }

    function outsideAllowed(what: string, paths: readonly string[]): string | undefined {
      const outside = paths.filter(
        (p) => !isWithin(resolveProjectPath(root, p), config.allowed_paths),
      );
      return outside.length === 0 ? undefined : `${what} would write ${outside.join(', ')}`;
    }
  },
});
