import { resolve } from 'node:path';
import { findProjectRoot } from '../../config/locations.js';
import type { CommandHookAgent } from './agent.js';
import type { RuntimeSource } from './runtime-source.js';
import { type SessionPin, TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * The folder the agent reports as the session's own (the agent's `sessionFolder`, else the
 * event's `cwd`, else the process's folder), absolute; the project root is found from it once.
 */
function reportedFolder(agent: CommandHookAgent, event: HookEvent, env: NodeJS.ProcessEnv): string {
  const declared = agent.sessionFolder?.(event, env);
  if (declared !== undefined) return resolve(declared);
  return resolve(typeof event.cwd === 'string' && event.cwd !== '' ? event.cwd : process.cwd());
}

/**
 * The session's pinned place (docs/command-hooks.md, The project root, pinned per session): stored with its turn state at its
 * first event, from what the agent reports, and the same for every later event of the session,
 * whatever folder that event comes from. So a folder of the project made to look like a project
 * (a `.git` file, a `.hermes/` folder) never becomes the root, the project's own config and
 * extensions stay the ones that judge, and a folder outside the root stays outside the project.
 * The event's own `cwd` is still where its shell runs: relative paths are resolved from there.
 */
export function sessionPin(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  store: TurnStore,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SessionPin> {
  return store.pin(sessionId, () => {
    const from = reportedFolder(agent, event, env);
    return { from, root: findProjectRoot(from, home) };
  });
}

/**
 * `runtimes`, each runtime loaded for the session's pinned place rather than the event's folder.
 * The pin is looked up (or made) when the first runtime is asked for: every event that judges
 * anything loads one, and the session's first (the prompt) is among them.
 */
export function pinnedRuntimes(
  runtimes: RuntimeSource,
  pin: () => Promise<SessionPin>,
): RuntimeSource {
  let pinned: Promise<SessionPin> | undefined;
  return {
    acquire: async (options) => {
      pinned ??= pin();
      const { from, root } = await pinned;
      return runtimes.acquire({ ...options, cwd: from, root });
    },
    release: (runtime) => runtimes.release(runtime),
  };
}

/**
 * The pinned place of a hook's input (its JSON text), as the hook answering it pins it: for a
 * host that must know the project before the hook runs (the daemon picks the runtime by it).
 * Undefined when the input names no session: the event's own folder is the place then.
 */
export async function pinOfInput(
  agent: CommandHookAgent,
  stdin: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<SessionPin | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = agent.readEvent(raw as HookEvent);
  if (typeof event === 'string' || typeof event.session_id !== 'string') return undefined;
  return sessionPin(agent, event, event.session_id, new TurnStore(home), home, env);
}
