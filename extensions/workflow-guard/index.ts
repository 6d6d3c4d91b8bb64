import { block, defineExtension, injectSystem, injectUser, rewrite } from 'hermes-extensions';
import { toolJudge } from './check-tool.js';
import { blockText, guardrailText, reminderText, workflowGuardConfig } from './config.js';
import { isImplementationRequest } from './intent.js';
import { hasValidPlan } from './plan.js';

/** What the guard learned in this turn, in its slot of the per-turn state. */
interface GuardState {
  /** Tool calls it blocked. */
  blocked: number;
  /** The user's request was rewritten to the plan command. */
  redirected: boolean;
}

/**
 * Plan before edit, enforced: until a plan exists at `plan_path`, implementation requests are
 * redirected to the plan command, each model request is reminded to plan, and a tool call passes
 * only when it is shown not to change anything outside `allowed_paths` (check-tool.ts); every
 * other call is blocked with what to do instead.
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
    const guard = hermes.turnState<GuardState>(() => ({ blocked: 0, redirected: false }));

    hermes.on(
      'transform_user_input',
      (event) => {
        if (planned() || !isImplementationRequest(event.userMessage)) return undefined;
        guard(event).redirected = true;
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

    // A validator: it judges the call as it will run, after every extension that rewrites it.
    const judge = toolJudge(root, config);
    hermes.on(
      'intercept_tool_call',
      (event) => {
        if (planned()) return undefined;
        const refusal = judge(event.toolName, event.toolArgs);
        if (refusal === undefined) return undefined;
        guard(event).blocked++;
        return block(blockText(config, refusal.what, refusal.hint), {
          workflowGuard: refusal.what,
        });
      },
      { priority: 10, phase: 'validate' },
    );
  },
});
