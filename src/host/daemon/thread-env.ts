import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';

/**
 * What of the environment loading read: the values of `values`, whether each of `present` is
 * set, and whether the list of names (`names`: an enumeration, which sees which variables are
 * set, not their values).
 */
export interface EnvRead {
  values: string[];
  present: string[];
  names: boolean;
}

export interface ThreadEnv {
  /** Makes `env` the thread's own environment: what is read outside any event. */
  adopt(env: Record<string, string>): void;
  /** Runs `work` with `process.env` being `env` (an event's: the asking hook's environment). */
  run<T>(env: Record<string, string>, work: () => T): T;
  /** Notes the variables read from now on, until `stop`. */
  note(): { stop(): EnvRead };
  /** Runs `work` (synchronous) with nothing it reads noted: what the framework reads for itself. */
  aside<T>(work: () => T): T;
}

/**
 * `process.env` of a hook daemon's runtime thread (runtime-worker.ts): while an event is answered
 * it is that event's environment — the asking hook's, as the hook process would have it — so
 * events of several hooks answered at once each read their own; outside any event (a timer, a
 * runtime being closed) it is the thread's own, adopted from the hook it was started for. The
 * variables read while the runtime loads are noted: a runtime serves only hooks whose values of
 * those are the same as when it loaded (runtime-workers.ts), so no extension's `setup` ever saw
 * another hook's value (nor, if it listed the variables, another hook's list); what loading sets,
 * every later event sees, as the handlers of one hook process would. `os.homedir()` and
 * `os.tmpdir()`, which Node reads from the thread's start environment, read it here too.
 */
export function installThreadEnv(): ThreadEnv {
  // The thread's own: Node's internals read it (and it is what a child process inherits by default
  // outside an event), so it is kept, and changed in place on adoption.
  const own = process.env as Record<string, string>;
  const storage = new AsyncLocalStorage<Record<string, string>>();
  let noted: { values: Set<string>; present: Set<string>; names: boolean } | undefined;
  /** What loading set (undefined: deleted): later events see it too, as in one hook process. */
  const setByLoad = new Map<string, string | undefined>();
  const env = () => storage.getStore() ?? own;
  const change = (name: string | symbol, value: string | undefined) => {
    if (typeof name !== 'string') return;
    apply(env(), name, value);
    // While the runtime loads: for the thread, and for every event after this one.
    if (noted === undefined) return;
    setByLoad.set(name, value);
    apply(own, name, value);
  };
  const read = (name: string | symbol) => {
    if (typeof name === 'string') noted?.values.add(name);
  };
  const looked = (name: string | symbol) => {
    if (typeof name === 'string') noted?.present.add(name);
  };
  process.env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_, name) => {
      read(name);
      return typeof name === 'string' ? env()[name] : undefined;
    },
    has: (_, name) => {
      looked(name);
      return typeof name === 'string' && Object.hasOwn(env(), name);
    },
    set: (_, name, value) => {
      change(name, String(value));
      return true;
    },
    deleteProperty: (_, name) => {
      change(name, undefined);
      return true;
    },
    ownKeys: () => {
      if (noted !== undefined) noted.names = true;
      return Object.keys(env());
    },
    // Asked for each name by an enumeration (Object.keys): whether it is set, not its value.
    getOwnPropertyDescriptor: (_, name) => {
      looked(name);
      const values = env();
      if (typeof name !== 'string' || !Object.hasOwn(values, name)) return undefined;
      return { value: values[name], writable: true, enumerable: true, configurable: true };
    },
  });
  const processHome = os.homedir;
  // As libuv does: HOME when it is set and not empty, else the user's record.
  os.homedir = () => process.env.HOME || processHome();
  os.tmpdir = () => {
    const path = process.env.TMPDIR || process.env.TMP || process.env.TEMP || '/tmp';
    return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  };

  return {
    adopt(values) {
      for (const name of Object.keys(own)) if (!Object.hasOwn(values, name)) delete own[name];
      Object.assign(own, values);
    },
    run(values, work) {
      const event = { ...values };
      for (const [name, value] of setByLoad) apply(event, name, value);
      return storage.run(event, work);
    },
    note() {
      const notes = { values: new Set<string>(), present: new Set<string>(), names: false };
      noted = notes;
      return {
        stop() {
          if (noted === notes) noted = undefined;
          const values = [...notes.values].sort();
          const present = [...notes.present].filter((name) => !notes.values.has(name)).sort();
          return { values, present, names: notes.names };
        },
      };
    },
    aside(work) {
      const notes = noted;
      noted = undefined;
      try {
        return work();
      } finally {
        if (noted === undefined) noted = notes;
      }
    },
  };
}

function apply(env: Record<string, string>, name: string, value: string | undefined): void {
  if (value === undefined) delete env[name];
  else env[name] = value;
}
