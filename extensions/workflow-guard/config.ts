import { z } from 'zod';

/** workflow-guard's config (the seed's names and defaults). Paths are relative to the project root. */
export const workflowGuardConfig = z.object({
  plan_path: z.string().min(1).default('plans/active/plan.md'),
  blocked_tools: z.array(z.string()).default(['write', 'edit', 'patch']),
  allowed_paths: z.array(z.string()).default(['plans/', 'handoff/']),
  shell_tools: z.array(z.string()).default(['terminal', 'bash', 'shell']),
  /** Programs a shell command may run without a plan, besides the built-in read-only ones. */
  shell_read_only: z.array(z.string()).default([]),
  plan_command: z.string().min(1).default('/start-feature'),
  texts: z
    .object({
      /** Injected as a user message before each model request while there is no plan. */
      reminder: z.string().optional(),
      /** Appended to the system prompt once there is a plan. */
      guardrails: z.string().optional(),
    })
    .default({}),
});

export type WorkflowGuardConfig = z.output<typeof workflowGuardConfig>;

export function reminderText(config: WorkflowGuardConfig): string {
  return (
    config.texts.reminder ??
    `No plan exists yet at ${config.plan_path}. Plan before you implement: write the plan there first (goal, files to change, steps, how it will be tested). Until it exists, changes outside ${config.allowed_paths.join(', ')} are blocked.`
  );
}

export function guardrailText(config: WorkflowGuardConfig): string {
  return (
    config.texts.guardrails ??
    `A plan exists at ${config.plan_path}. Follow it step by step, keep each change surgical, and run the tests before saying the work is done.`
  );
}

export function blockText(config: WorkflowGuardConfig, what: string): string {
  return `Blocked by workflow-guard: ${what}, and no plan exists at ${config.plan_path}. Write the plan at ${config.plan_path} first (writing under ${config.allowed_paths.join(', ')} is allowed), then make this change.`;
}
