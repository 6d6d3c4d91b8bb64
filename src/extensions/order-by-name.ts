import { didYouMean } from '../config/suggest.js';
import type { HandlerPhase } from '../hooks/types.js';
import type { Registration } from './setup.js';
import type { Diagnostic } from './types.js';

/** A registration with the load order of its extension, as `orderHandlers` takes it. */
export interface Ordered {
  loadOrder: number;
  registration: Registration;
}

/** One constraint between two handlers of a chain: `from` runs before `to`. */
interface Edge {
  from: number;
  to: number;
  /** Which option said so, and who: the handler at `from` (before) or at `to` (after). */
  kind: 'before' | 'after';
  declarer: string;
  named: string;
  dropped: boolean;
}

/**
 * Applies `before` / `after` to handlers already in priority order (order.ts), each chain (hook
 * and phase) on its own, and reports what cannot be done. The rule (docs/chain-semantics.md,
 * Order by name): a handler with `before` moves up to just ahead of the first handler of the
 * extensions it names, one with `after` down to just behind the last; every other handler keeps
 * its priority place. A stable topological sort then guarantees every constraint, picking among
 * the handlers free to run the one with the earliest place, then the one priority puts first.
 * Constraints that form a cycle are dropped (and reported), so the result is always an order,
 * and always the same one for the same extensions.
 */
export function orderByName(
  sorted: readonly Ordered[],
  known: readonly string[],
  diagnostics: Diagnostic[],
): Ordered[] {
  const result = [...sorted];
  const said = new Set<string>();
  const report = (diagnostic: Diagnostic) => {
    if (said.has(diagnostic.message)) return;
    said.add(diagnostic.message);
    diagnostics.push(diagnostic);
  };
  const everyName = [...new Set([...known, ...sorted.map(extensionOf)])].sort();
  const chains = new Map<string, number[]>();
  sorted.forEach((entry, at) => {
    const { hook, phase } = entry.registration.handler;
    const key = `${hook} ${phase}`;
    const slots = chains.get(key) ?? [];
    slots.push(at);
    chains.set(key, slots);
  });
  for (const slots of chains.values()) {
    const chain = slots.map((at) => sorted[at] as Ordered);
    checkNames(chain, sorted, new Set(everyName), everyName, report);
    const ordered = orderChain(chain, report);
    slots.forEach((at, i) => {
      result[at] = ordered[i] as Ordered;
    });
  }
  return result;
}

/**
 * What a name that orders nothing in this chain means: the extension itself (a cycle of one), an
 * extension of the other phase (phases never move), or no extension loaded (void, but a typo
 * should be seen). A loaded or discovered extension with no handler here is void and silent.
 */
function checkNames(
  chain: readonly Ordered[],
  all: readonly Ordered[],
  everyName: ReadonlySet<string>,
  suggestions: readonly string[],
  report: (d: Diagnostic) => void,
): void {
  const here = new Set(chain.map(extensionOf));
  for (const entry of chain) {
    const { extension, hook, phase } = entry.registration.handler;
    const on = `${hook}${phase === 'validate' ? ' (validators)' : ''}`;
    for (const kind of ['before', 'after'] as const) {
      for (const name of entry.registration[kind]) {
        if (name === extension) {
          report({
            code: 'ORDER_CYCLE',
            severity: 'warning',
            extension,
            message: `"${extension}" names itself in \`${kind}\` on ${on}: a cycle of one, so the constraint is ignored (an extension's own handlers run by priority, then in registration order)`,
          });
          continue;
        }
        if (here.has(name)) continue;
        const other = all.find(
          (e) =>
            extensionOf(e) === name &&
            e.registration.handler.hook === hook &&
            e.registration.handler.phase !== phase,
        );
        if (other !== undefined) {
          // A mutator before a validator, or a validator after a mutator, already holds.
          if ((phase === 'mutate') === (kind === 'before')) continue;
          report({
            code: 'ORDER_ACROSS_PHASES',
            severity: 'warning',
            extension,
            message: `"${extension}" asks to run ${kind} "${name}" on ${hook}, but "${extension}" ${phaseWord(phase)} there and "${name}" ${phaseWord(other.registration.handler.phase)}: every mutator runs before every validator, and before/after never move a handler across phases, so the constraint is ignored`,
          });
          continue;
        }
        if (everyName.has(name)) continue;
        const guess = didYouMean(name, suggestions);
        report({
          code: 'ORDER_NOT_FOUND',
          // A likely typo is worth a warning; a name like no other is an optional extension.
          severity: guess === undefined ? 'info' : 'warning',
          extension,
          message: `"${extension}" names "${name}" in \`${kind}\` on ${hook}, but no extension of that name was found${guess === undefined ? '' : ` (did you mean "${guess}"?)`}: the constraint is void until one is loaded`,
        });
      }
    }
  }
}

function orderChain(chain: readonly Ordered[], report: (d: Diagnostic) => void): Ordered[] {
  const n = chain.length;
  const byExtension = new Map<string, number[]>();
  chain.forEach((entry, i) => {
    const list = byExtension.get(extensionOf(entry)) ?? [];
    list.push(i);
    byExtension.set(extensionOf(entry), list);
  });
  const edges: Edge[] = [];
  chain.forEach((entry, i) => {
    const declarer = extensionOf(entry);
    for (const kind of ['before', 'after'] as const) {
      for (const named of entry.registration[kind]) {
        if (named === declarer) continue; // reported by checkNames
        for (const j of byExtension.get(named) ?? []) {
          const [from, to] = kind === 'before' ? [i, j] : [j, i];
          edges.push({ from, to, kind, declarer, named, dropped: false });
        }
      }
    }
  });
  if (edges.length === 0) return [...chain];
  dropCycles(chain, edges, report);
  const live = edges.filter((e) => !e.dropped);

  // The place each handler asks for: `before` pulls it up to the first handler it names, then
  // `after` pushes it down behind the last; in a topological order, so chains of names carry.
  const place = chain.map((_, i) => i);
  const topo = topologicalOrder(n, live, (i) => i);
  const out = outgoing(n, live);
  const into: Edge[][] = chain.map(() => []);
  for (const e of live) into[e.to]?.push(e);
  for (const v of [...topo].reverse()) {
    for (const e of out[v] ?? [])
      if (e.kind === 'before') place[v] = Math.min(place[v] as number, place[e.to] as number);
  }
  for (const v of topo) {
    for (const e of into[v] ?? [])
      if (e.kind === 'after') place[v] = Math.max(place[v] as number, place[e.from] as number);
  }
  // Ties on a place go by priority order (the index), so the result is one order, always.
  return topologicalOrder(n, live, (i) => (place[i] as number) * n + i).map(
    (i) => chain[i] as Ordered,
  );
}

/** Kahn's sort: among the nodes whose predecessors have all run, the one of least `rank` next. */
function topologicalOrder(
  n: number,
  edges: readonly Edge[],
  rank: (i: number) => number,
): number[] {
  const waiting = new Array<number>(n).fill(0);
  for (const e of edges) waiting[e.to] = (waiting[e.to] as number) + 1;
  const out = outgoing(n, edges);
  const done = new Array<boolean>(n).fill(false);
  const order: number[] = [];
  while (order.length < n) {
    let next = -1;
    for (let i = 0; i < n; i++) {
      if (done[i] || waiting[i] !== 0) continue;
      if (next === -1 || rank(i) < rank(next)) next = i;
    }
    // Cycles were dropped before: there is always a next one.
    done[next] = true;
    order.push(next);
    for (const e of out[next] ?? []) waiting[e.to] = (waiting[e.to] as number) - 1;
  }
  return order;
}

/**
 * Finds the strongly connected components (Tarjan) of the constraint graph; each of more than one
 * handler is a cycle: its inner constraints are dropped, and it is reported with its extensions
 * and what each of them asked. Constraints between a cycle and the other handlers still hold.
 */
function dropCycles(
  chain: readonly Ordered[],
  edges: readonly Edge[],
  report: (d: Diagnostic) => void,
): void {
  const n = chain.length;
  const out = outgoing(n, edges);
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  const visit = (v: number) => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = true;
    for (const { to } of out[v] ?? []) {
      if (index[to] === -1) {
        visit(to);
        low[v] = Math.min(low[v] as number, low[to] as number);
      } else if (onStack[to]) {
        low[v] = Math.min(low[v] as number, index[to] as number);
      }
    }
    if (low[v] !== index[v]) return;
    const component: number[] = [];
    let w: number;
    do {
      w = stack.pop() as number;
      onStack[w] = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort((a, b) => a - b));
  };
  for (let v = 0; v < n; v++) if (index[v] === -1) visit(v);

  for (const component of components.sort((a, b) => (a[0] as number) - (b[0] as number))) {
    const inside = new Set(component);
    const asked: string[] = [];
    for (const e of edges) {
      if (!inside.has(e.from) || !inside.has(e.to)) continue;
      e.dropped = true;
      const said = `"${e.declarer}" ${e.kind} "${e.named}"`;
      if (!asked.includes(said)) asked.push(said);
    }
    const names = [...new Set(component.map((i) => extensionOf(chain[i] as Ordered)))];
    const { hook, phase } = (chain[component[0] as number] as Ordered).registration.handler;
    report({
      code: 'ORDER_CYCLE',
      severity: 'warning',
      extension: names[0] as string,
      message: `before/after on ${hook}${phase === 'validate' ? ' (validators)' : ''} form a cycle among ${names.map((x) => `"${x}"`).join(', ')} (${asked.join(', ')}): these constraints are ignored, and those handlers run where priority and the other constraints put them`,
    });
  }
}

/** Each node's constraints to later ones, so no loop walks every edge for every node. */
function outgoing(n: number, edges: readonly Edge[]): Edge[][] {
  const out: Edge[][] = Array.from({ length: n }, () => []);
  for (const e of edges) out[e.from]?.push(e);
  return out;
}

function phaseWord(phase: HandlerPhase): string {
  return phase === 'validate' ? 'validates (phase: validate)' : 'mutates';
}

function extensionOf(entry: Ordered): string {
  return entry.registration.handler.extension;
}
