import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport } from '../modules/native-import.js';
import { installPeerAdvice, optionalPeer, peerProblem } from '../optional-peers.js';
import { type Decision, NO_DECISION } from './answer.js';
import {
  actionEntity,
  type CedarRequest,
  type CedarUid,
  cedarRequests,
  resourceEntity,
} from './cedar-request.js';
import type { Decide } from './extension.js';

const CEDAR = '@cedar-policy/cedar-wasm';

/** The part of the engine's API used here (cedar_wasm.d.ts of the pinned version). */
interface CedarEngine {
  policySetTextToParts(text: string): Answer<{ policies: string[]; policy_templates: string[] }>;
  policyToJson(policy: string): Answer<{ json: { annotations?: Record<string, string> } }>;
  checkParseEntities(call: { entities: unknown; schema?: unknown }): Answer<object>;
  checkParseSchema(schema: unknown): Answer<object>;
  validate(call: { schema: unknown; policies: unknown }): Answer<{
    validationErrors: Array<{ policyId: string; error: { message: string } }>;
  }>;
  isAuthorized(call: object): Answer<{
    response: {
      decision: 'allow' | 'deny';
      diagnostics: {
        reason: string[];
        errors: Array<{ policyId: string; error: { message: string } }>;
      };
    };
  }>;
}

type Answer<T> =
  | ({ type: 'success' } & T)
  | { type: 'failure'; errors: Array<{ message: string }> };

/** A file a declaration names, read as trusted (declarations.ts). */
export interface NamedFile {
  path: string;
  text: string;
}

/**
 * The Cedar engine, from the framework's own folder (src/optional-peers.ts), or an error saying
 * what to install: a Cedar declaration without it cannot decide, so it does not load (and tool
 * calls are refused, as for any guard that failed to load).
 */
async function cedarEngine(): Promise<CedarEngine> {
  const peer = optionalPeer(CEDAR);
  const problem = peerProblem(peer);
  if (problem !== undefined || peer.folder === undefined) {
    throw new Error(
      `${problem ?? `${CEDAR} is not installed`}: ${installPeerAdvice(CEDAR)} (Cedar policies are evaluated with it; a default install leaves it out)`,
    );
  }
  return (await nativeImport(
    pathToFileURL(join(peer.folder, 'nodejs', 'cedar_wasm.js')).href,
  )) as CedarEngine;
}

/**
 * `kind: cedar` (docs/policies.md, cedar): the policy file parsed, checked against the schema and
 * entities when given, once, when the runtime is built — a mistake is a load error naming the
 * file. Then each event is one request per resource: a `forbid` that applies blocks with its
 * `@reason`, a `permit` for every resource passes, and no applicable policy is no decision. A
 * policy that fails to evaluate is skipped by Cedar; here it fails the call instead (the handler's
 * fail mode: closed for tool calls), since the skipped policy may be the `forbid` that applied.
 */
export async function cedarDecide(
  name: string,
  policy: NamedFile,
  entitiesFile: NamedFile | undefined,
  schemaFile: NamedFile | undefined,
): Promise<Decide> {
  const engine = await cedarEngine();
  const parts = ok(engine.policySetTextToParts(policy.text), policy.path);
  if (parts.policy_templates.length > 0) {
    throw new Error(`${policy.path}: policy templates are not supported; write static policies`);
  }
  const staticPolicies: Record<string, string> = {};
  const reasons = new Map<string, string | undefined>();
  parts.policies.forEach((text, i) => {
    const annotations = ok(engine.policyToJson(text), policy.path).json.annotations ?? {};
    const id = annotations.id ?? `policy${i}`;
    if (Object.hasOwn(staticPolicies, id)) {
      throw new Error(`${policy.path}: two policies have the @id "${id}"`);
    }
    staticPolicies[id] = text;
    reasons.set(id, annotations.reason);
  });
  const policies = { staticPolicies };
  const schema = schemaFile && parseSchema(engine, schemaFile);
  const entities = entitiesFile ? parseEntities(engine, entitiesFile, schema) : [];
  if (schema !== undefined) {
    const checked = ok(engine.validate({ schema, policies }), policy.path);
    if (checked.validationErrors.length > 0) {
      const found = checked.validationErrors.map((e) => `${e.policyId}: ${e.error.message}`);
      throw new Error(
        `${policy.path} does not match the schema ${schemaFile?.path}: ${found.join('; ')}`,
      );
    }
  }
  const given = new Set(entities.map((e) => key((e as { uid: CedarUid }).uid)));
  const who = `${name} (cedar ${policy.path})`;
  const ask = (request: CedarRequest, hook: Parameters<Decide>[0]) => {
    const answer = engine.isAuthorized({
      ...request,
      policies,
      entities: [
        ...entities,
        // The tool's action entity makes `action in Hermes::Action::"<hook>"` hold; with a
        // schema, the schema's actions are the action entities.
        ...(schema === undefined ? [actionEntity(hook, request)] : []),
        // Unless the entities file describes this resource itself.
        ...(given.has(key(request.resource)) ? [] : [resourceEntity(request)]),
      ],
      ...(schema === undefined ? {} : { schema, validateRequest: true }),
    });
    if (answer.type === 'failure') {
      throw new Error(`${who} could not decide: ${answer.errors.map((e) => e.message).join('; ')}`);
    }
    const { decision, diagnostics } = answer.response;
    if (diagnostics.errors.length > 0) {
      const found = diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`);
      throw new Error(`${who}: a policy failed to evaluate (${found.join('; ')})`);
    }
    return { decision, reason: diagnostics.reason };
  };
  return async (hook, event): Promise<Decision> => {
    let undecided = false;
    for (const request of cedarRequests(hook, event)) {
      const { decision, reason } = ask(request, hook);
      if (decision === 'deny' && reason.length > 0) {
        const id = reason[0] as string;
        return {
          action: 'block',
          value: reasons.get(id) ?? `${who}: forbidden by policy "${id}"`,
        };
      }
      if (decision === 'deny') undecided = true;
    }
    return undecided ? NO_DECISION : { action: 'pass' };
  };
}

/** An entity's uid as one string, to look it up (`uid` as the entities file spells it). */
function key(uid: CedarUid | { __entity: CedarUid }): string {
  const { type, id } = '__entity' in uid ? uid.__entity : uid;
  return JSON.stringify([type, id]);
}

function parseSchema(engine: CedarEngine, file: NamedFile): unknown {
  const schema = file.path.endsWith('.json') ? parseJson(file) : file.text;
  ok(engine.checkParseSchema(schema), file.path);
  return schema;
}

function parseEntities(engine: CedarEngine, file: NamedFile, schema: unknown): unknown[] {
  const entities = parseJson(file);
  if (!Array.isArray(entities)) throw new Error(`${file.path}: expected a JSON array of entities`);
  ok(
    engine.checkParseEntities({ entities, ...(schema === undefined ? {} : { schema }) }),
    file.path,
  );
  return entities;
}

function parseJson(file: NamedFile): unknown {
  try {
    return JSON.parse(file.text) as unknown;
  } catch (error) {
    throw new Error(`${file.path} is not JSON: ${(error as Error).message}`);
  }
}

function ok<T>(answer: Answer<T>, path: string): T {
  if (answer.type === 'success') return answer as T;
  throw new Error(`${path}: ${answer.errors.map((e) => e.message).join('; ')}`);
}
