import type { SubagentSpawn } from 'hermes-extensions';
import {
  analyzeShell,
  callLinks,
  configuresLaterProgram,
  isWithin,
  type ProjectPath,
  resolveProjectPath,
  shellInvocationOf,
  writeTargetsOf,
} from 'hermes-extensions/policy';
import type { WorkflowGuardConfig } from './config.js';
import { judgeSpawn } from './spawn.js';
import { normalizeToolName, toolKinds } from './tool-kinds.js';
import { hasOtherNames, unplacedArgument } from './writer-arguments.js';

/** Why a tool call may not run (with a hint for the user), or undefined. */
export interface Refusal {
  what: string;
  hint?: string;
  /**
   * `violation`: the guard knows what the call changes, and that is not allowed yet (a person may
   * approve it, with `on_violation: ask`). `unclear`: the guard cannot tell what it changes (an
   * unknown tool, an unreadable patch, a command not shown to only read); always blocked.
   */
  kind: 'violation' | 'unclear';
}

/** Editors whose `view` command only reads. */
const EDITORS_WITH_VIEW = new Set(['strreplaceeditor', 'strreplacebasededittool']);

/**
 * Judges tool calls made before a plan exists. Writers (`blocked_tools`) pass when every file
 * they would write lies in `allowed_paths`; shell tools when their command is shown to only read
 * (writes through redirections, `tee` and `mkdir` again only in `allowed_paths`); tools known to
 * only read pass; a tool that starts a subagent passes when the host says the subagent's calls
 * are judged too, and is refused when it says they are not (spawn.ts); any other tool (MCP tools
 * too) is refused unless `unknown_tools: allow`.
 */
export function toolJudge(
  root: string,
  config: WorkflowGuardConfig,
  /** Why a write to `allowed_paths` cannot be judged now (a sandboxed command still runs). */
  busy?: () => string | undefined,
) {
  const kindOf = toolKinds(config);

  function judge(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    /** What the host says when the call starts a subagent (spawn.ts). */
    spawn?: SubagentSpawn,
  ): Refusal | undefined {
    const kind = kindOf(tool);
    if (kind === 'writer') return judgeWrite(tool, normalizeToolName(tool), args);
    if (kind === 'shell') return judgeShell(args);
    const spawned = judgeSpawn(tool, spawn);
    if (spawned !== undefined) return spawned.refusal;
    if (kind === 'reader' || config.unknown_tools === 'allow') return undefined;
    return {
      what: `${tool} is not a tool known to only read`,
      hint: `If it only reads, add it to workflow-guard's read_only_tools.`,
      kind: 'unclear',
    };
  }

  function judgeWrite(
    tool: string,
    name: string,
    args: Readonly<Record<string, unknown>>,
  ): Refusal | undefined {
    if (EDITORS_WITH_VIEW.has(name) && args.command === 'view') return undefined;
    const targets = writeTargetsOf(args);
    if (targets.unknown) return { what: `${tool}: ${targets.unknown}`, kind: 'unclear' };
    if (targets.paths.length === 0) {
      return { what: `${tool} names no file it would write`, kind: 'unclear' };
    }
    // What the guard cannot place comes first: a person asked about the paths it did read would
    // approve the others unseen.
    const unplaced = unplacedArgument(root, tool, args, targets.paths, config.allowed_paths);
    if (unplaced) return unplaced;
    const linked = judgeLinks(tool, targets);
    if (linked) return linked;
    return outsideAllowed(
      tool,
      targets.paths.map((path) => resolveProjectPath(root, path)),
    );
  }

  /**
   * A patch that makes a symbolic link passes only when the link and where it leads are both
   * writable, and each path it names is judged where it lands once its links exist too: GNU patch
   * writes `plans/l/a.ts` through the link `plans/l` it made a moment before.
   */
  function judgeLinks(tool: string, targets: ReturnType<typeof writeTargetsOf>) {
    const links = callLinks(root, targets.links, targets.moves);
    if (links.unknown) return { what: `${tool}: ${links.unknown}`, kind: 'unclear' } as const;
    for (const link of links.links) {
      const reaches = resolveProjectPath(root, link.leadsTo);
      const refusal = outsideAllowed(tool, [resolveProjectPath(root, link.at), reaches]);
      if (refusal) {
        const where = reaches.inProject ?? reaches.real;
        return {
          ...refusal,
          what: `${tool} would make ${link.given} a symbolic link to ${JSON.stringify(link.text)} (${where === '' ? 'the project root' : where}), and a link and where it leads must both be writable`,
        };
      }
    }
    for (const path of targets.paths) {
      const landed = links.through(path);
      if (landed === undefined) continue;
      const refusal = outsideAllowed(tool, [
        { ...resolveProjectPath(root, landed), given: `${path} (through a link it makes)` },
      ]);
      if (refusal) return refusal;
    }
    return undefined;
  }

  function judgeShell(args: Readonly<Record<string, unknown>>): Refusal | undefined {
    const invocation = shellInvocationOf(args);
    if (invocation.kind === 'unknown') return { what: invocation.reason, kind: 'unclear' };
    for (const run of invocation.runs) {
      const analysis = analyzeShell(run, {
        root,
        cwd: invocation.cwd,
        readOnly: config.shell_read_only,
      });
      if (analysis.kind === 'opaque') {
        return {
          what: `the command cannot be shown to only read: ${analysis.reason}${analysis.part && analysis.part !== run ? ` (in \`${analysis.part}\`)` : ''}`,
          hint: "If a program it runs only reads, the user can allow it without a plan in workflow-guard's shell_read_only.",
          kind: 'unclear',
        };
      }
      const paths: ProjectPath[] = [];
      for (const write of analysis.writes) {
        if (write.cwd === undefined && !write.path.startsWith('/')) {
          return {
            what: `the command writes ${write.path} from a folder that cannot be known`,
            kind: 'unclear',
          };
        }
        paths.push(resolveProjectPath(root, write.path, write.cwd));
      }
      const refusal = outsideAllowed('the command', paths);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * A path passes when both where it really is and where its name says lie in `allowed_paths`,
   * and it is a new file or an existing one with a single link (a hard link in `plans/` may be
   * another name of a source file).
   */
  function outsideAllowed(what: string, paths: readonly ProjectPath[]): Refusal | undefined {
    const outside = paths.filter((path) => !isWithin(path, config.allowed_paths));
    if (outside.length > 0) {
      return {
        what: `${what} would write ${outside.map((p) => p.given).join(', ')}`,
        kind: 'violation',
      };
    }
    // Held read-only in the sandbox too (dangerous.ts): a write here could make a program run
    // later in this folder (git, an editor, an agent, a shell) run code outside every sandbox.
    const configuring = paths.filter((path) =>
      [path.inProject, path.lexicalInProject].some(
        (rel) => rel !== undefined && configuresLaterProgram(rel),
      ),
    );
    if (configuring.length > 0) {
      return {
        what: `${what} would write ${configuring.map((p) => p.given).join(', ')}, which configures programs run later outside the sandbox (git, a shell, an editor, an agent)`,
        kind: 'violation',
      };
    }
    const linked = paths.filter(hasOtherNames);
    if (linked.length > 0) {
      return {
        what: `${what} would write ${linked.map((p) => p.given).join(', ')}, which has other names (a hard link)`,
        kind: 'violation',
      };
    }
    const notNow = paths.length > 0 ? busy?.() : undefined;
    if (notNow !== undefined) {
      return {
        what: `${what} would write ${paths.map((p) => p.given).join(', ')}, but ${notNow}`,
        kind: 'unclear',
      };
    }
    return undefined;
  }

  return judge;
}
