import { z } from 'zod';
import { type AgentIdentity, agentIdentitySchema, frozenAgent } from './agent-identity.js';
import type { HookDeclaration, TurnContext } from './declaration.js';
import { frozenCopy } from './frozen.js';
import type { Metadata, RewriteResult } from './results.js';
import { actionSchema, objectInput } from './schemas.js';

/**
 * `transform_tool_result`: once per tool call that ran, after the tool and before the model sees
 * what it returned. `rewrite` replaces the result the model gets (redact a secret, shorten a huge
 * output, strip text that tries to steer the model); `block` puts a refusal in its place, shaped
 * like a blocked call's (`{"error","blocked_by_extension","extension"}`), and ends the chain. The
 * tool has already run: a block hides its output, it cannot undo its effects (that is
 * `intercept_tool_call`'s work).
 *
 * Fails closed by default: a redactor that throws must not let the secret it was written to hide
 * reach the model, so its failure replaces the result with a refusal that names it. A call that
 * was refused before it ran (blocked, declined, not offered) has no result and is not passed here.
 */
export interface ToolResultInput {
  toolName: string;
  /** The arguments the tool ran with: after every rewrite of `intercept_tool_call`. */
  toolArgs: Record<string, unknown>;
  /** What the tool returned, in the host's form (a string, or JSON data such as `{stdout, …}`). */
  result: unknown;
  /** The tool failed: `result` is its error as the model would get it. */
  isError?: boolean;
  toolCallId?: string;
  /** Defaults to the turn id. */
  taskId?: string;
  /** The subagent that made the call; absent for the main agent. */
  agent?: AgentIdentity;
  /**
   * The MCP server whose tool it is, when the call came through `hermes mcp proxy` (its `--name`,
   * docs/mcp.md); absent for an agent's own tools.
   */
  mcpServer?: string;
}

export interface TransformToolResultEvent {
  readonly toolName: string;
  readonly toolArgs: Readonly<Record<string, unknown>>;
  /** The result as it stands: the tool's, or the last rewrite's. Read-only. */
  readonly result: unknown;
  readonly isError: boolean;
  readonly toolCallId?: string;
  readonly taskId: string;
  readonly agent?: AgentIdentity;
  /** The MCP server whose tool it is (`hermes mcp proxy --name`); undefined for an agent's own tools. */
  readonly mcpServer?: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

export const transformToolResult: HookDeclaration<
  ToolResultInput,
  unknown,
  TransformToolResultEvent
> = {
  name: 'transform_tool_result',
  input: z.object({
    toolName: z.string(),
    toolArgs: objectInput(),
    result: z.unknown(),
    isError: z.boolean().optional(),
    toolCallId: z.string().optional(),
    taskId: z.string().optional(),
    agent: agentIdentitySchema.optional(),
    mcpServer: z.string().optional(),
  }),
  wire: {
    names: {
      toolName: 'tool_name',
      toolArgs: 'tool_args',
      result: 'result',
      isError: 'is_error',
      toolCallId: 'tool_call_id',
      taskId: 'task_id',
      agent: 'agent',
      mcpServer: 'mcp_server',
    },
  },
  samples: [
    sampleOfTool('terminal'),
    sampleOfTool('read'),
    sampleOfTool('write'),
    sampleOfTool('web_fetch'),
  ],
  sampleOfTool,
  defaultOnError: 'block',
  actions: {
    // Any JSON data: the runner checks and copies it (chain/json-data.ts); a host that needs a
    // shape of its own (Claude Code's tool output objects) says so where it applies the result.
    rewrite: actionSchema('rewrite', z.unknown()),
  },
  view: (input) => frozenCopy(input.result),
  unchanged: (input) => input.result,
  event: (input, result, turn: TurnContext, metadata) =>
    Object.freeze({
      toolName: input.toolName,
      toolArgs: frozenCopy(input.toolArgs),
      result,
      isError: input.isError === true,
      toolCallId: input.toolCallId,
      taskId: input.taskId ?? turn.turnId,
      agent: frozenAgent(input.agent),
      mcpServer: input.mcpServer,
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  fold: (_result, rewritten) => (rewritten as RewriteResult<unknown>).value,
};

function sampleOfTool(toolName: string): ToolResultInput {
  // A result shaped like a shell's, the most common output guards redact.
  return {
    toolName,
    toolArgs: { path: 'src/example.ts', command: 'ls' },
    result: { stdout: 'example output', exitCode: 0 },
  };
}
