import {
  ask,
  block,
  defineExtension,
  injectSystem,
  injectUser,
  restrictTools,
  rewrite,
  type SubagentSpawn,
} from 'hermes-extensions';
import { type Refusal, toolJudge } from './check-tool.js';
import {
  askText,
  blockText,
  guardrailText,
  moduleText,
  reminderText,
  workflowGuardConfig,
} from './config.js';
import { isImplementationRequest } from './intent.js';
import { moduleJudge } from './module-roots.js';
import { hasValidPlan, readPlan } from './plan.js';
import { adviseRefusedWrite, guardSandbox, notSandboxedHint } from './sandbox.js';
import { toolKinds, toolNamePattern } from './tool-kinds.js';

/** What the guard learned in this turn, in its slot of the per-turn state. */
interface GuardState {
  /** Tool calls it blocked. */
  blocked: number;
  /** Tool calls it asked a person to approve (`on_violation: ask`). */
  asked: number;
  /** The user's request was rewritten to the plan command. */
  redirected: boolean;
  /** Shell calls it made run in the OS sandbox. */
  sandboxed: number;
}

/**
 * A judge whose answer the sandboxing handler hands to the validator of the same call: when nothing
 * rewrote the call, the validator meets the same arguments object and takes the answer instead of
 * judging again, so a command proven to only read is analysed once (BENCHMARKS.md, The sandbox).
 * An answer is taken at most once, and the handler forgets any earlier one for the object first,
 * so a host that passes the same object again is judged again.
 */
function judgeHandedOn(
  judge: (
    tool: string,
    args: Readonly<Record<string, unknown>>,
    spawn?: SubagentSpawn,
  ) => Refusal | undefined,
) {
  const handed = new WeakMap<object, { tool: string; refusal: Refusal | undefined }>();
  return {
    judgeAndHandOn(tool: string, args: Readonly<Record<string, unknown>>): Refusal | undefined {
      handed.delete(args);
      const refusal = judge(tool, args);
      handed.set(args, { tool, refusal });
      return refusal;
    },
    judge(
      tool: string,
      args: Readonly<Record<string, unknown>>,
      spawn?: SubagentSpawn,
    ): Refusal | undefined {
      const known = handed.get(args);
      handed.delete(args);
      // Only shell calls are handed on, and a shell call is judged the same with or without spawn.
      return known !== undefined && known.tool === tool ? known.refusal : judge(tool, args, spawn);
    },
  };
}

/**
 * The sandboxing handler runs after every other extension's rewrites (they may change the command
 * it wraps), and the validator accepts only the wrapper exactly as made (extensions/workflow-guard/README.md, The sandbox).
 */
const SANDBOX_PRIORITY = 10_000;

/**
 * Plan before edit, enforced: until a plan exists at `plan_path`, implementation requests are
 * redirected to the plan command, each model request is reminded to plan and offered only the
 * tools that could pass (`hide_tools`), and a tool call passes only when it is shown not to change
 * anything outside `allowed_paths` (check-tool.ts) or, for a shell call the guard cannot read,
 * runs in the OS sandbox (sandbox.ts); every other call is blocked (or, for a change
 * the guard understands, asked about with `on_violation: ask`) with what to do instead. With a
 * plan, a new folder under a `module_roots` folder needs the plan to name it (module-roots.ts).
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
    const kindOf = toolKinds(config);
    const guard = hermes.turnState<GuardState>(() => ({
      blocked: 0,
      asked: 0,
      redirected: false,
      sandboxed: 0,
    }));

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

    if (config.hide_tools && config.unknown_tools === 'block') {
      // Prevention before the backstop: a tool no call of which could pass without a plan
      // (any tool the guard does not know) is not offered. Writers stay (they write the plan
      // into allowed_paths) and so do shell tools (a command shown to only read passes, and one
      // the guard cannot read runs in the sandbox).
      const couldPass = (tool: string) => kindOf(tool) !== 'unknown';
      hermes.on(
        'before_llm_call',
        (event) => {
          if (event.tools === undefined || event.tools.every(couldPass) || planned()) {
            return undefined;
          }
          return restrictTools(
            event.tools.filter(couldPass),
            `no plan exists at ${config.plan_path} yet: only tools that read or can write the plan are offered until it does`,
          );
        },
        { priority: 10 },
      );
    }

    // Validators: they judge the call as it will run, after every extension that rewrites it.
    const sandbox =
      config.sandbox === 'off' ? undefined : guardSandbox(root, config, hermes.sandboxDenyRead);
    // While a sandboxed command runs, a write to allowed_paths is not judged (sandbox.ts).
    const judging = judgeHandedOn(toolJudge(root, config, sandbox?.busy));
    const judge = judging.judge;
    const judgeModules = moduleJudge(root, config);

    if (sandbox !== undefined) {
      // Without a plan, a shell call the analysis cannot prove harmless (or, with `require`, any
      // shell call) runs in the OS sandbox instead of being refused. A change the guard can name
      // (a write to src/) stays a refusal that says so: its message tells the model what to do.
      hermes.on(
        'intercept_tool_call',
        (event) => {
          if (kindOf(event.toolName) !== 'shell' || planned() || sandbox.holds(event.toolArgs)) {
            return undefined;
          }
          const refusal = judging.judgeAndHandOn(event.toolName, event.toolArgs);
          if (refusal?.kind === 'violation') return undefined;
          if (refusal === undefined && config.sandbox === 'auto') return undefined;
          const call = sandbox.wrap(event.toolArgs);
          if (call.kind !== 'sandboxed') return undefined;
          guard(event).sandboxed++;
          return rewrite(call.args, {
            workflowGuard: `runs in the OS sandbox: ${refusal?.what ?? 'every shell call does before a plan (sandbox: require)'}`,
          });
        },
        { priority: SANDBOX_PRIORITY, tools: toolNamePattern(config.shell_tools) },
      );

      // The model reads why a write failed in the sandbox, and what would let it: only for the
      // call the guard wrapped (the line it made, made again and compared), never another's.
      // Advice only: should it fail, the model gets the tool's own result rather than a refusal.
      hermes.on(
        'transform_tool_result',
        (event) => {
          if (kindOf(event.toolName) !== 'shell' || !sandbox.holds(event.toolArgs)) {
            return undefined;
          }
          const advised = adviseRefusedWrite(config, event.result, planned());
          return advised === undefined
            ? undefined
            : rewrite(advised, { workflowGuard: 'told the model why the sandbox refused a write' });
        },
        { tools: toolNamePattern(config.shell_tools), onError: 'pass' },
      );
    }

    // Only a change the guard understands may be put to a person; what it cannot read is blocked.
    const asks = (refusal: Refusal) =>
      config.on_violation === 'ask' && refusal.kind === 'violation';
    const refuse = (event: Parameters<typeof guard>[0], refusal: Refusal, text: string) => {
      guard(event)[asks(refusal) ? 'asked' : 'blocked']++;
      const metadata = { workflowGuard: refusal.what };
      return asks(refusal) ? ask(text, metadata) : block(text, metadata);
    };
    /** A shell call without a plan: the guard's own sandboxed form passes; the rest is judged. */
    const judgeShellBeforePlan = (
      tool: string,
      args: Readonly<Record<string, unknown>>,
    ): Refusal | undefined => {
      if (sandbox?.holds(args)) return undefined;
      const refusal = judge(tool, args);
      if (refusal?.kind === 'violation') return refusal;
      if (refusal === undefined && config.sandbox !== 'require') return undefined;
      const hint = notSandboxedHint(config, sandbox?.wrap(args));
      if (refusal === undefined) {
        return {
          what: 'every shell call runs in the OS sandbox before a plan exists (sandbox: require), and this one did not',
          hint,
          kind: 'unclear',
        };
      }
      return { ...refusal, hint: `${hint}${refusal.hint ? ` ${refusal.hint}` : ''}` };
    };
    hermes.on(
      'intercept_tool_call',
      (event) => {
        const plan = readPlan(root, config.plan_path);
        if (plan !== undefined) {
          const refusal = judgeModules(event.toolName, event.toolArgs, plan);
          if (refusal === undefined) return undefined;
          const text = moduleText(config, refusal.what, {
            ask: asks(refusal),
            folders: refusal.folders,
          });
          return refuse(event, refusal, text);
        }
        const refusal =
          kindOf(event.toolName) === 'shell'
            ? judgeShellBeforePlan(event.toolName, event.toolArgs)
            : judge(event.toolName, event.toolArgs, event.spawn);
        if (refusal === undefined) return undefined;
        const text = (asks(refusal) ? askText : blockText)(config, refusal.what, refusal.hint);
        return refuse(event, refusal, text);
      },
      { priority: 10, phase: 'validate' },
    );
  },
});
