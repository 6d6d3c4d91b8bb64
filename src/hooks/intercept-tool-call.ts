import { z } from 'zod';
import { type AgentIdentity, agentIdentitySchema, frozenAgent } from './agent-identity.js';
import type { HookDeclaration, TurnContext } from './declaration.js';
import { frozenCopy } from './frozen.js';
import type { Metadata, RewriteResult } from './results.js';
import { actionSchema, objectInput, plainObjectSchema } from './schemas.js';
import { frozenSpawn, type SubagentSpawn, subagentSpawnSchema } from './subagent-spawn.js';

/**
 * `intercept_tool_call`: once per tool call. `rewrite` replaces the arguments the tool runs with;
 * `block` keeps the tool from running and its message goes to the model as the tool's error;
 * `ask` leaves the decision to a person (the host's approver), or denies when nobody can be asked.
 * Fails closed by default: a broken guard must not silently let a write through.
 */
export interface ToolCallInput {
  toolName: string;
  toolArgs: Record<string, unknown>;
  toolCallId?: string;
  /** Defaults to the turn id. */
  taskId?: string;
  /** The subagent that made the call; absent for the main agent. */
  agent?: AgentIdentity;
  /** Set when the call starts a subagent, and whether its calls are covered (subagent-spawn.ts). */
  spawn?: SubagentSpawn;
  /**
   * Set by a host that cannot tell what the call would do (the Hermes agent's `terminal` without
   * an absolute `workdir` under its shell hooks, which runs in a folder no event names): why, and
   * how the model can retry. The framework refuses the call with it, without running a handler,
   * and reports it as any decision.
   */
  unjudgeable?: string;
  /**
   * The MCP server whose tool it is, when the call came through `hermes mcp proxy` (its `--name`,
   * docs/mcp.md); absent for an agent's own tools.
   */
  mcpServer?: string;
}

export interface InterceptToolCallEvent {
  readonly toolName: string;
  readonly toolArgs: Readonly<Record<string, unknown>>;
  readonly toolCallId?: string;
  readonly taskId: string;
  /** The subagent that made the call; undefined for the main agent (agent-identity.ts). */
  readonly agent?: AgentIdentity;
  /** Set when the call starts a subagent, and whether its calls are covered (subagent-spawn.ts). */
  readonly spawn?: SubagentSpawn;
  /** The MCP server whose tool it is (`hermes mcp proxy --name`); undefined for an agent's own tools. */
  readonly mcpServer?: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

export const interceptToolCall: HookDeclaration<
  ToolCallInput,
  Record<string, unknown>,
  InterceptToolCallEvent
> = {
  name: 'intercept_tool_call',
  input: z.object({
    toolName: z.string(),
    toolArgs: objectInput(),
    toolCallId: z.string().optional(),
    taskId: z.string().optional(),
    agent: agentIdentitySchema.optional(),
    spawn: subagentSpawnSchema.optional(),
    unjudgeable: z.string().optional(),
    mcpServer: z.string().optional(),
  }),
  wire: {
    names: {
      toolName: 'tool_name',
      toolArgs: 'tool_args',
      toolCallId: 'tool_call_id',
      taskId: 'task_id',
      agent: 'agent',
      spawn: 'spawn',
      unjudgeable: 'unjudgeable',
      mcpServer: 'mcp_server',
    },
  },
  samples: [
    sampleOfTool('write'),
    sampleOfTool('edit'),
    sampleOfTool('read'),
    sampleOfTool('terminal'),
  ],
  sampleOfTool,
  defaultOnError: 'block',
  asks: true,
  actions: {
    rewrite: actionSchema('rewrite', plainObjectSchema),
  },
  view: (input) => frozenCopy(input.toolArgs),
  unchanged: (input) => input.toolArgs,
  event: (input, toolArgs, turn: TurnContext, metadata) =>
    Object.freeze({
      toolName: input.toolName,
      toolArgs,
      toolCallId: input.toolCallId,
      taskId: input.taskId ?? turn.turnId,
      agent: frozenAgent(input.agent),
      spawn: frozenSpawn(input.spawn),
      mcpServer: input.mcpServer,
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  // The runner hands over the value as a frozen copy it checked to be JSON data.
  fold: (_args, result) => (result as RewriteResult<Record<string, unknown>>).value,
};

function sampleOfTool(toolName: string): ToolCallInput {
  // Arguments most tools' guards read, whatever the tool.
  return { toolName, toolArgs: { path: 'src/example.ts', content: 'example', command: 'ls' } };
}
