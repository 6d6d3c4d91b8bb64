import { describeError } from '../../chain/errors.js';
import type { ChainOutcome } from '../../chain/outcome.js';
import { hermesCommand } from '../../command-name.js';
import { ConfigError } from '../../config/errors.js';
import { declarationOf } from '../../hooks/index.js';
import type { ToolCallInput } from '../../hooks/intercept-tool-call.js';
import type { ToolResultInput } from '../../hooks/transform-tool-result.js';
import { turnTelemetry } from '../../runtime/turn.js';
import {
  type Approver,
  answerOf,
  approvalRequest,
  decideApproval,
  declinedToolResult,
} from '../approval.js';
import { refusedAfterCrash } from '../crash-outcome.js';
import type { RelayedRequest } from './relay.js';
import type { ProxySession } from './session.js';

/** A tool call's result as MCP answers it (`CallToolResult`), and any fields the server added. */
export type ToolResult = { [key: string]: unknown; content: unknown[]; isError?: boolean };

/** What the proxy needs around one tool call besides its session. */
export interface ToolCallRoute {
  session: ProxySession;
  /** The wrapped server's name (`--name`): the calls' `mcpServer`. */
  server: string;
  /** The project, for the advice of a refusal (`--cwd`). */
  cwd: string;
  /** Asks the person through the client (elicitation); undefined when the client cannot. */
  approver: () => Approver | undefined;
  /** The call, with the arguments the chain let through, run by the wrapped server. */
  forward: (args: Record<string, unknown>) => Promise<ToolResult>;
  /** Whether `value` is a `CallToolResult` (the SDK's schema). */
  isToolResult: (value: unknown) => value is ToolResult;
}

/** A refusal as the client's model reads it: the reason, as the tool's error. */
export function refusal(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * One `tools/call` through the extensions: `intercept_tool_call` (a block answers the reason as
 * the tool's error and the wrapped server never sees the call; a rewrite sends the new
 * arguments; an ask goes to the person through the client, and is declined where nobody can be
 * asked), then the wrapped server's result through `transform_tool_result`, failing closed (a
 * redactor that fails or blocks hides the whole result). `pre_tool_call` and `post_tool_call`
 * are told as in every host, with the result the client gets.
 */
export async function judgedToolCall(
  route: ToolCallRoute,
  request: RelayedRequest,
  callId: string,
): Promise<ToolResult> {
  const params = request.params ?? {};
  const name = params.name;
  const given = params.arguments ?? {};
  if (
    typeof name !== 'string' ||
    given === null ||
    typeof given !== 'object' ||
    Array.isArray(given)
  ) {
    return refusal(
      'Blocked: the tool call names no tool, or its arguments are not an object; the proxy judges only calls it can read.',
    );
  }
  let open: Awaited<ReturnType<ProxySession['turn']>>;
  try {
    open = await route.session.turn();
  } catch (error) {
    return refusal(cannotLoad(error, route.cwd));
  }
  const { turn, runtime } = open;
  const toolArgs = given as Record<string, unknown>;
  const telemetry = turnTelemetry(turn);
  const call = { id: callId, name, arguments: toolArgs };
  const started = performance.now();
  telemetry.preTool(call);
  const done = (result: ToolResult, status: 'ok' | 'error' | 'blocked'): ToolResult => {
    telemetry.postTool(call, undefined, {
      status,
      result: textOf(result),
      durationMs: performance.now() - started,
    });
    return result;
  };
  const input: ToolCallInput = {
    toolName: name,
    toolArgs,
    toolCallId: callId,
    mcpServer: route.server,
  };
  const outcome = await runtime.decide(
    async () => turn.interceptToolCall(input),
    (crash) => refusedAfterCrash(declarationOf('intercept_tool_call'), input, crash),
  );
  if (outcome.blocked) return done(refusal(outcome.message), 'blocked');
  if (outcome.ask !== undefined) {
    const approve = route.approver();
    const asked = approvalRequest(
      outcome.ask,
      { toolName: name, toolArgs: outcome.value, toolCallId: callId },
      { sessionId: turn.sessionId, turnId: turn.turnId, taskId: turn.turnId },
    );
    const pending = telemetry.approvalRequested({
      ...asked,
      ask: outcome.ask,
      trace: outcome.trace,
      surface: 'elicitation',
      host: 'mcp_proxy',
    });
    const approval = await decideApproval(approve ?? noElicitation, asked);
    telemetry.approvalAnswered(pending, answerOf(approval, approve));
    if (!approval.approved) return done(refusal(declinedToolResult(approval).error), 'blocked');
  }
  const result = await route.forward(outcome.value);
  const resultInput: ToolResultInput = {
    toolName: name,
    toolArgs: outcome.value,
    result,
    isError: result.isError === true,
    toolCallId: callId,
    mcpServer: route.server,
  };
  const transformed = await runtime.decide(
    async () => turn.transformToolResult(resultInput),
    (crash) => refusedAfterCrash(declarationOf('transform_tool_result'), resultInput, crash),
  );
  const status = result.isError === true ? 'error' : 'ok';
  if (transformed.blocked) return done(refusal(transformed.message), status);
  return done(asToolResult(route, transformed, result), status);
}

/**
 * The result as rewritten, as a `CallToolResult`: one a handler kept in that shape as it is, text
 * it made of it as the one text content, anything else as its JSON text.
 */
function asToolResult(
  route: ToolCallRoute,
  transformed: ChainOutcome<unknown>,
  original: ToolResult,
): ToolResult {
  if (!transformed.changed) return original;
  const value = transformed.value;
  if (route.isToolResult(value)) return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return {
    content: [{ type: 'text', text }],
    ...(original.isError === true ? { isError: true } : {}),
  };
}

/**
 * A result as observers are told it: its text, as the model reads it (module-router looks for
 * the routing file's lines in it); the content as JSON when none of it is text.
 */
function textOf(result: ToolResult): string {
  const texts = result.content.flatMap((part) => {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    return type === 'text' && typeof text === 'string' ? [text] : [];
  });
  return texts.length > 0 ? texts.join('\n') : JSON.stringify(result.content);
}

/** The approver where the client offers no elicitation: nobody can be asked, and the call is declined saying so. */
const noElicitation: Approver = () => {
  throw new Error(
    'this MCP client offers no elicitation, so the proxy cannot ask a person (approve the call where the guard allows it, or use a client that supports elicitation)',
  );
};

/**
 * Why every tool call is refused while the extensions cannot be loaded (fail closed). The proxy
 * loads them once for its session: the client starts a new one (reconnects the server) to load
 * them again once they are fixed.
 */
function cannotLoad(error: unknown, cwd: string): string {
  const what = error instanceof ConfigError ? error.message : describeError(error);
  return `Blocked: hermes cannot load the extensions for ${cwd}, so every tool call is refused: ${what}. Fix it (\`${hermesCommand()} extensions doctor\` in that folder says more), then reconnect this MCP server in the client.`;
}
