import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport } from '../modules/native-import.js';
import { installPeerAdvice, optionalPeer, peerProblem } from '../optional-peers.js';
import { NO_DECISION, readAnswer } from './answer.js';
import type { Decide } from './extension.js';
import { decisionInput } from './input.js';

const OPA_WASM = '@open-policy-agent/opa-wasm';

/** The part of the runner's API used here (src/opa.js of the pinned version). */
interface LoadedPolicy {
  entrypoints: Record<string, number>;
  setData(data: unknown): void;
  evaluate(input: unknown, entrypoint?: number | string): Array<{ result?: unknown }>;
}

async function opaWasm(): Promise<{ loadPolicy(wasm: Uint8Array): Promise<LoadedPolicy> }> {
  const peer = optionalPeer(OPA_WASM);
  const problem = peerProblem(peer);
  if (problem !== undefined || peer.folder === undefined) {
    throw new Error(
      `${problem ?? `${OPA_WASM} is not installed`}: ${installPeerAdvice(OPA_WASM)} (compiled Rego policies are evaluated with it; a default install leaves it out)`,
    );
  }
  const module = (await nativeImport(
    pathToFileURL(join(peer.folder, 'src', 'index.mjs')).href,
  )) as {
    loadPolicy(wasm: Uint8Array): Promise<LoadedPolicy>;
  };
  return module;
}

/**
 * `kind: rego` with `bundle`: a policy compiled to WebAssembly (`opa build -t wasm`), run with
 * OPA's wasm runner, as the server form reads a document (rego-server.ts): no result is no
 * decision, `true` / `false` allow or deny, an object is `{allow, reason}` or a HookResult.
 * Loaded once; a file that is not a compiled policy, or an entrypoint it does not have, is a load
 * error naming the file.
 */
export async function regoWasmDecide(
  name: string,
  bundle: { path: string; bytes: Buffer },
  data: { path: string; text: string } | undefined,
  entrypoint: string | undefined,
): Promise<Decide> {
  const runner = await opaWasm();
  let policy: LoadedPolicy;
  try {
    const bytes = new Uint8Array(bundle.bytes);
    policy = await runner.loadPolicy(bytes);
  } catch (error) {
    throw new Error(
      `${bundle.path} is not a compiled Rego policy: ${String((error as Error)?.message ?? error)}`,
    );
  }
  if (entrypoint !== undefined && !Object.hasOwn(policy.entrypoints, entrypoint)) {
    throw new Error(
      `${bundle.path} has no entrypoint ${entrypoint} (it has ${Object.keys(policy.entrypoints).join(', ') || 'none'})`,
    );
  }
  if (data !== undefined) {
    try {
      policy.setData(JSON.parse(data.text));
    } catch (error) {
      throw new Error(`${data.path}: ${(error as Error).message}`);
    }
  }
  const who = `${name} (rego ${bundle.path})`;
  return async (hook, event) => {
    const results = policy.evaluate(decisionInput(hook, event), entrypoint ?? 0);
    const first = results[0];
    if (first === undefined || !Object.hasOwn(first, 'result')) return NO_DECISION;
    if (first.result === true) return { action: 'pass' };
    if (first.result === false) return { action: 'block', value: `${who} denied it` };
    return readAnswer(first.result, who);
  };
}
