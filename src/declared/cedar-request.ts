import type { HookName } from '../hooks/index.js';
import { shellCommandOf } from '../policy/shell/invocation.js';
import { extractToolPaths } from '../policy/tool-paths.js';

/** An entity reference in Cedar's JSON form. */
export interface CedarUid {
  type: string;
  id: string;
}

/** One Cedar request of a call, before the policies and entities are added. */
export interface CedarRequest {
  principal: CedarUid;
  action: CedarUid;
  resource: CedarUid;
  context: Record<string, unknown>;
}

/** The namespace of every type the framework names (docs/policies.md, The Cedar request). */
export const NAMESPACE = 'Hermes';

interface EventFields {
  toolName?: unknown;
  toolArgs?: unknown;
  agent?: { id: string; type?: string; parent?: string };
  sessionId?: unknown;
  turnId?: unknown;
  userMessage?: unknown;
  state?: unknown;
}

/**
 * The Cedar requests an event makes, one per resource it names (docs/policies.md, The Cedar
 * request): principal the agent (`Hermes::Agent::"main"`, or the subagent's id), action the tool
 * (`Hermes::Action::"<tool>"`, in `Hermes::Action::"<hook>"`) or the hook point, resource each
 * path the call names (`Hermes::Path`), its command line (`Hermes::Command`), else the tool
 * (`Hermes::Tool`) — or the session, at a hook point that is not a tool's. A call is allowed when
 * every one of its requests is.
 */
export function cedarRequests(hook: HookName, event: object): CedarRequest[] {
  const fields = event as EventFields;
  const tool = typeof fields.toolName === 'string' ? fields.toolName : undefined;
  const args = isRecord(fields.toolArgs) ? fields.toolArgs : undefined;
  const paths = args ? extractToolPaths(args) : [];
  const command = args ? shellCommandOf(args) : undefined;
  const agent = fields.agent;
  const context: Record<string, unknown> = {
    hook,
    session_id: String(fields.sessionId ?? ''),
    turn_id: String(fields.turnId ?? ''),
    main_agent: agent === undefined,
    ...(agent === undefined ? {} : { agent: { ...agent } }),
    ...(tool === undefined ? {} : { tool }),
    ...(args === undefined ? {} : { args: cedarValue(args, 'args') }),
    ...(tool === undefined ? {} : { paths }),
    ...(command === undefined ? {} : { command }),
    ...(typeof fields.userMessage === 'string' ? { user_message: fields.userMessage } : {}),
    state: cedarValue(fields.state ?? {}, 'state') ?? {},
  };
  const principal = { type: `${NAMESPACE}::Agent`, id: agent?.id ?? 'main' };
  const action = { type: `${NAMESPACE}::Action`, id: tool ?? hook };
  const resources: CedarUid[] =
    tool === undefined
      ? [{ type: `${NAMESPACE}::Session`, id: String(fields.sessionId ?? '') }]
      : [
          ...paths.map((id) => ({ type: `${NAMESPACE}::Path`, id })),
          ...(command === undefined ? [] : [{ type: `${NAMESPACE}::Command`, id: command }]),
        ];
  if (resources.length === 0 && tool !== undefined) {
    resources.push({ type: `${NAMESPACE}::Tool`, id: tool });
  }
  return resources.map((resource) => ({ principal, action, resource, context }));
}

/** The action entity of a tool: a member of its hook point's, so `action in` names the hook. */
export function actionEntity(hook: HookName, request: CedarRequest) {
  const parents = request.action.id === hook ? [] : [{ type: `${NAMESPACE}::Action`, id: hook }];
  return { uid: request.action, attrs: {}, parents };
}

/**
 * The resource as an entity whose `name` is its id (a path, a command line), so a policy can match
 * it (`resource.name like "*.env"`): Cedar offers no other way to read an entity's id.
 */
export function resourceEntity(request: CedarRequest) {
  return { uid: request.resource, attrs: { name: request.resource.id }, parents: [] };
}

/**
 * A JSON value as Cedar data: Cedar has no null and no fractions, so a null is left out and a
 * number that is not a safe integer becomes its text. A record with a key Cedar reads as an escape
 * (`__entity`, `__extn`, `__expr`) is refused: the agent writes the arguments, and must not make
 * one of them an entity the policy would trust.
 */
function cedarValue(value: unknown, at: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.map((item, i) => cedarValue(item, `${at}[${i}]`)).filter((v) => v !== undefined);
  }
  const record: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith('__')) {
      throw new Error(`${at}.${key}: a key that starts with "__" cannot be given to Cedar`);
    }
    const converted = cedarValue(item, `${at}.${key}`);
    if (converted !== undefined) record[key] = converted;
  }
  return record;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
