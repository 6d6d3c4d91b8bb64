import { realpathSync } from 'node:fs';
import { hermesCommand } from '../command-name.js';
import type { Diagnostic } from '../extensions/types.js';
import type { FileView } from '../fs/file-view.js';
import { heldView } from './held-view.js';
import type { ProjectTrust } from './project-trust.js';
import { describeChanges, type FileRecord } from './records.js';
import { readTrust } from './store.js';

/**
 * A project trusted once whose files changed since: what was trusted stays in force until the
 * user reviews the change (docs/trust.md, What trust covers). A change never turns the guards
 * off: the agent can edit the project's config and extensions, and a user who edits them and
 * forgets to trust again must not lose them either.
 */
export interface HeldState {
  /** The files of the last trust record: what project code may read, and all the project has. */
  files: readonly FileRecord[];
  /** The project as it was trusted (held-view.ts): config found and extensions discovered in it. */
  view: FileView;
  /**
   * What of the trusted state cannot be rebuilt (a copy or a bundle not kept, the bundler
   * missing): loading then refuses every tool call, since the guards it would run are unknown.
   */
  missing: string[];
}

/**
 * The held state of a project that is not trusted as it is now but was trusted before (`changed`,
 * or `unreadable` since); undefined for one never trusted (its files do nothing, as ever), one
 * trusted as it is, and one trusted for this run only.
 */
export function heldStateOf(trust: ProjectTrust, home: string): HeldState | undefined {
  if (trust.state !== 'changed' && trust.state !== 'unreadable') return undefined;
  const record = readTrust(home)[trust.root];
  if (record === undefined) return undefined;
  const files = 'outdated' in record ? [] : record.files;
  const missing =
    'outdated' in record
      ? [
          'its trust record was written by an older version of hermes-extensions, which kept no list of the files trusted',
        ]
      : [];
  return { files, view: heldView(home, trust.root, realRoot(trust.root), files, missing), missing };
}

/** The diagnostic of a held project: the state in force, or why none can be (and so all is refused). */
export function heldNotice(trust: ProjectTrust, held: HeldState): Diagnostic {
  const command = `\`${hermesCommand()} extensions trust\``;
  const what = `project ${trust.root} ${sinceTrusted(trust)}`;
  if (held.missing.length > 0) {
    return {
      code: 'TRUST_HELD',
      severity: 'error',
      file: trust.root,
      message: `${what}, and the config and extensions trusted then cannot be rebuilt: ${held.missing.join('; ')}. Every tool call is refused until you review the change and run ${command} in the project.`,
    };
  }
  return {
    code: 'TRUST_HELD',
    severity: 'warning',
    file: trust.root,
    message: `${what}: the config and extensions trusted then stay in force, and the change awaits review: run ${command} in the project to see it and trust it.`,
  };
}

/** `changed since it was trusted on …: 1 changed (.hermes/config.yaml)`. */
export function sinceTrusted(trust: ProjectTrust): string {
  const on = trust.trustedAt ? ` on ${trust.trustedAt}` : '';
  if (trust.state === 'unreadable') {
    return `changed since it was trusted${on}, and its code cannot be fingerprinted now (${trust.problems.join('; ')})`;
  }
  const changes = trust.changes ? `: ${describeChanges(trust.changes)}` : '';
  return `changed since it was trusted${on}${changes}`;
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}
