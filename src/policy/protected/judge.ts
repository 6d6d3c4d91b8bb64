import { isAbsolute } from 'node:path';
import { groundSandboxedCallOf, mayBeSandboxLine } from '../sandbox/ground-call.js';
import { bwrapSandboxedCallOf } from '../sandbox/held.js';
import { analyzeShell } from '../shell/analyze.js';
import { shellInvocationOf } from '../shell/invocation.js';
import { writeTargetsOf } from '../tool-paths.js';
import { type ProtectedGround, type ProtectedHit, protectedHit } from './ground.js';
import { protectedHermesCommand } from './hermes-commands.js';
import { groundKindOf } from './kinds.js';
import { mentionedGround } from './mentions.js';
import { patchGround } from './patch-ground.js';

/** Why a tool call may not run: it would change protected ground. */
export interface GroundRefusal {
  /** What the call would do (`Write would write .hermes/config.yaml`). */
  what: string;
  /** What that place decides. */
  decides: string;
}

/**
 * The framework's rule (docs/trust.md, Protected ground): a tool call that would change
 * protected ground, or run a framework command that does, is refused, whoever the agent, with or
 * without a plan. A tool known to only read passes; a shell tool is judged by its command; any
 * other tool by every path its arguments name for writing (the paths of writer tools, of
 * patches, of any tool the framework does not know). `denyRead`: what the rule's sandbox hides
 * (contain.ts), asked only to recognise that sandbox's line.
 */
export function judgeGround(
  ground: ProtectedGround,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  denyRead: () => readonly string[] = () => [],
): GroundRefusal | undefined {
  const kind = groundKindOf(tool);
  if (kind === 'reader') return undefined;
  if (kind === 'shell') return judgeShell(ground, args, denyRead);
  const targets = writeTargetsOf(args);
  for (const path of targets.paths) {
    const hit = protectedHit(ground, path);
    if (hit !== undefined) return refusal(`${tool} would write ${hit.given}`, hit);
  }
  if (targets.unknown !== undefined) {
    // The files it changes cannot all be named (an unreadable patch): its text must not name
    // protected ground either.
    const hit = mentionedGround(ground, JSON.stringify(args), undefined);
    if (hit !== undefined) return refusal(`${tool} (${targets.unknown}) names ${hit.given}`, hit);
  }
  return undefined;
}

/**
 * Besides the programs the shell analysis knows to only read: `git add` only stages what it
 * names (it writes under `.git/`), so `git add .hermes/config.yaml` changes no protected file.
 * Only as the first word after `git`: `git -C DIR add` is not this.
 */
const ONLY_STAGES = ['git add'];

function judgeShell(
  ground: ProtectedGround,
  args: Readonly<Record<string, unknown>>,
  denyRead: () => readonly string[],
): GroundRefusal | undefined {
  const inner = ownSandboxed(ground, args, denyRead);
  if (inner !== undefined) return judgeShell(ground, inner, denyRead);
  const text = JSON.stringify(args);
  const invocation = shellInvocationOf(args);
  const runs =
    invocation.kind === 'unknown'
      ? []
      : invocation.runs.map((run) => ({
          run,
          analysis: analyzeShell(run, {
            root: ground.root,
            cwd: invocation.cwd,
            readOnly: ONLY_STAGES,
          }),
        }));
  // A line made only of programs known to only read, writing no file, runs no framework command:
  // its words may mention one (`grep "hermes extensions trust" docs`). A line that writes a file
  // may be writing the command into a script, and is read for it as any other.
  const readsOnly =
    invocation.kind !== 'unknown' &&
    runs.every(({ analysis }) => analysis.kind === 'analyzed' && analysis.writes.length === 0);
  const command = readsOnly ? undefined : protectedHermesCommand(text);
  if (command !== undefined) {
    return {
      what: `the command runs \`${command}\``,
      decides: 'which guards run and how (the trust store, the extensions, approvals, the hooks)',
    };
  }
  if (invocation.kind === 'unknown') {
    const hit = mentionedGround(ground, text, undefined);
    return hit === undefined ? undefined : refusal(`the command names ${hit.given}`, hit);
  }
  for (const { run, analysis } of runs) {
    for (const command of analysis.commands) {
      const patch = patchGround(ground, command);
      if (patch === undefined) continue;
      if ('hit' in patch) return refusal(`the command writes ${patch.hit.given}`, patch.hit);
      return {
        what: `the command applies a patch whose files cannot be read (${patch.unknown})`,
        decides:
          'it might write what decides the guards; apply a patch file the rule can read: `patch -pN -i FILE` or `git apply FILE`, with options it knows',
      };
    }
    if (analysis.kind === 'opaque') {
      // What the command writes cannot be listed: it may not name protected ground at all.
      const hit = mentionedGround(ground, lineOf(run), invocation.cwd);
      if (hit !== undefined) return refusal(`the command names ${hit.given}`, hit);
      continue;
    }
    for (const write of analysis.writes) {
      if (write.cwd === undefined && !isAbsolute(write.path)) {
        // After a \`cd\` that may have failed, the folder is one the line names or the one it
        // started in: the line's words decide.
        const hit = mentionedGround(ground, lineOf(run), invocation.cwd);
        if (hit !== undefined)
          return refusal(`the command writes ${write.path} in ${hit.given}`, hit);
        continue;
      }
      const hit = protectedHit(ground, write.path, write.cwd);
      if (hit !== undefined) return refusal(`the command writes ${hit.given}`, hit);
    }
  }
  return undefined;
}

/**
 * The call with its command taken out of the rule's own sandbox (contain.ts) or workflow-guard's
 * bubblewrap line (held.ts), when it is exactly that line (an agent sends back what it was
 * given): the line names protected ground to make it read-only (`plans/.mcp.json` held where it
 * does not exist yet), and what runs inside is what is judged.
 */
function ownSandboxed(
  ground: ProtectedGround,
  args: Readonly<Record<string, unknown>>,
  denyRead: () => readonly string[],
): Record<string, unknown> | undefined {
  if (!mayBeSandboxLine(args)) return undefined;
  return (
    groundSandboxedCallOf(args, ground, denyRead()) ??
    bwrapSandboxedCallOf(args, ground, denyRead())
  );
}

function refusal(what: string, hit: ProtectedHit): GroundRefusal {
  return { what, decides: hit.what };
}

function lineOf(run: string | readonly string[]): string {
  return typeof run === 'string' ? run : run.join(' ');
}

// Loaded with the judge (src/runtime/protected-ground.ts imports this module when first needed).
export { containShellCall, type GroundContainment } from './contain.js';
