import type { Approver } from '../approval.js';
import type { RequestExtra } from './relay.js';
import type { McpSdk } from './sdk.js';

type Server = InstanceType<McpSdk['Server']>;
type ClientCapabilities = NonNullable<ReturnType<Server['getClientCapabilities']>>;

/**
 * Whether the client can put a form to the person (`elicitation`, form mode). A client of the
 * first elicitation spec says `elicitation: {}`, which meant forms; a newer one that offers only
 * URLs cannot show the question.
 */
export function offersFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/**
 * An ask put to the person through the client's elicitation: the extension's reason and the call
 * as it would run, and one yes/no field. Only an accepted form whose field says yes approves;
 * declining, cancelling or anything else the client answers declines (fail closed). `send` is the
 * tool call's own (the SDK's `extra.sendRequest`): over Streamable HTTP the question goes on that
 * call's stream, which the client is reading, whether or not it holds a stream of its own.
 */
export function elicitationApprover(
  sdk: McpSdk,
  send: RequestExtra['sendRequest'],
  serverName: string,
): Approver {
  return async (request) => {
    const answer = await send(
      {
        method: 'elicitation/create',
        params: {
          message: `${request.askedBy} asks before ${serverName}'s tool ${request.toolName} runs: ${request.message}\nArguments: ${JSON.stringify(request.toolArgs)}`,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: {
                type: 'boolean',
                title: 'Run this tool call',
                description: 'Yes runs it once; no refuses it.',
                default: false,
              },
            },
            required: ['approve'],
          },
        },
      },
      sdk.types.ElicitResultSchema,
    );
    return answer.action === 'accept' && answer.content?.approve === true;
  };
}
