import { READER_TOOL_NAMES, SHELL_TOOL_NAMES, WRITER_TOOL_NAMES } from 'hermes-extensions/policy';
import { z } from 'zod';

/** Tools that write the files they name: judged by every path they would write. */
export const DEFAULT_BLOCKED_TOOLS = [...WRITER_TOOL_NAMES];

/** Tools that only read or talk: they pass without a plan (`read_only_tools` adds more). */
export const READ_ONLY_TOOLS = [...READER_TOOL_NAMES];

/**
 * A module root as given (`src/`, `./packages`), kept as a folder relative to the project root
 * without `./` or a trailing `/` (`src`, `packages`).
 */
const moduleRoot = z
  .string({ error: 'a module root must be a folder name' })
  .transform((given) =>
    given
      .replace(/\\/g, '/')
      .replace(/^(\.\/)+/, '')
      .replace(/\/+$/, ''),
  )
  .pipe(
    z
      .string()
      .refine((root) => root !== '' && root !== '.', {
        error: 'a module root must name a folder below the project root, not the root itself',
      })
      .refine((root) => !root.startsWith('/') && !/^[A-Za-z]:/.test(root), {
        error: 'a module root must be relative to the project root, not absolute',
      })
      .refine(
        (root) =>
          !root.split('/').some((segment) => segment === '..' || segment === '.' || segment === ''),
        {
          error: 'a module root must be a plain folder path (no `..`, `.` or empty segments)',
        },
      ),
  );

/**
 * workflow-guard's config (extensions/README.md and this extension's README.md). Paths are relative to
 * the project root.
 */
export const workflowGuardConfig = z.object({
  plan_path: z.string().min(1).default('plans/active/plan.md'),
  blocked_tools: z.array(z.string()).default(DEFAULT_BLOCKED_TOOLS),
  allowed_paths: z.array(z.string()).default(['plans/', 'handoff/']),
  /** Tools that run shell commands: judged by what the command runs. */
  shell_tools: z.array(z.string()).default([...SHELL_TOOL_NAMES]),
  /**
   * Programs a shell command may run without a plan, besides the built-in read-only ones: a
   * name (any arguments) or a name and its first arguments (`npm test`). The user vouches for them.
   */
  shell_read_only: z.array(z.string()).default([]),
  /** Tools that only read, besides the built-in ones. */
  read_only_tools: z.array(z.string()).default([]),
  /** A tool that is none of the above, without a plan: blocked (the default) or allowed. */
  unknown_tools: z.enum(['block', 'allow']).default('block'),
  plan_command: z.string().min(1).default('/start-feature'),
  /**
   * What a change the guard understands and refuses becomes: `block`, or `ask` (a person may
   * approve it). What the guard cannot understand is blocked either way (README).
   */
  on_violation: z
    .enum(['block', 'ask'], { error: 'on_violation must be "block" or "ask"' })
    .default('block'),
  /** Without a plan, offer the model only the tools a call of which could pass (README). */
  hide_tools: z.boolean({ error: 'hide_tools must be true or false' }).default(true),
  /**
   * Folders whose top-level folders are modules (`src/`, `packages/`): creating a new one needs
   * a plan that names it, even once a plan exists.
   */
  module_roots: z.array(moduleRoot).default([]),
  /**
   * Without a plan, a shell call the read-only analysis cannot prove harmless runs in the OS
   * sandbox (extensions/workflow-guard/README.md, The sandbox): `auto` (the default) sandboxes those, `require` every shell call
   * before the plan, `off` refuses them as before.
   */
  sandbox: z
    .enum(['auto', 'require', 'off'], { error: 'sandbox must be "auto", "require" or "off"' })
    .default('auto'),
  /** Domains a sandboxed command may reach (`registry.npmjs.org`, `*.github.com`); none by default. */
  sandbox_network: z
    .array(z.string().min(1), { error: 'sandbox_network must be a list of domain names' })
    .default([]),
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

export function blockText(config: WorkflowGuardConfig, what: string, hint?: string): string {
  return `Blocked by workflow-guard: ${what}, and no plan exists at ${config.plan_path}. ${planAdvice(config)}${hint ? ` ${hint}` : ''}`;
}

/** The block text as an approval request (`on_violation: ask`). */
export function askText(config: WorkflowGuardConfig, what: string, hint?: string): string {
  return `workflow-guard asks for approval: ${what}, and no plan exists at ${config.plan_path}. A person may approve this call; otherwise ${lowerFirst(planAdvice(config))}${hint ? ` ${hint}` : ''}`;
}

function planAdvice(config: WorkflowGuardConfig): string {
  return `Write the plan at ${config.plan_path} first (writing under ${config.allowed_paths.join(', ')} is allowed), then make this change.`;
}

/** Why a call that would create a new module folder (or may, unreadably) is refused. */
export function moduleText(
  config: WorkflowGuardConfig,
  what: string,
  options: { ask: boolean; folders: readonly string[] },
): string {
  const roots = config.module_roots.map((root) => `${root}/`).join(', ');
  const advice =
    options.folders.length > 0
      ? `A new module needs a plan that names it: add ${options.folders.map((f) => `\`${f}\``).join(', ')} to the plan at ${config.plan_path} (what the module is for), or make the change in an existing module.`
      : `Name each path it creates literally, so the guard can check it against the module roots (${roots}).`;
  return options.ask
    ? `workflow-guard asks for approval: ${what}. A person may approve this call; otherwise ${lowerFirst(advice)}`
    : `Blocked by workflow-guard: ${what}. ${advice}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
