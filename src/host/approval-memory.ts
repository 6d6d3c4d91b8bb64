import { hermesHome } from '../config/locations.js';
import { type ApprovalGrant, grantCovers, grantKey } from '../hooks/remember-scope.js';
import { storeApproval } from './approval-changes.js';
import { projectApprovals, projectKey } from './approval-store.js';

/** How long an approval is remembered: this session, or this project until revoked. */
export type RememberFor = 'session' | 'always';

/**
 * Remembered approvals of one runtime: "session" answers in memory per session id, "always"
 * answers in the project's store under `$HERMES_HOME` (docs/hosts.md, Remembered approvals).
 */
export interface ApprovalMemory {
  /** What covers this call, if anything; throws (naming the file) when the store is corrupt. */
  covers(sessionId: string, call: ApprovalGrant): RememberFor | undefined;
  /**
   * Remembers an answer; an `always` one is written to the project's store (a promise that
   * rejects, naming the file, when it cannot be). `askedAt`, when the person was asked (before
   * `covers` was consulted): an `always` answer is then not stored if that approval was revoked
   * since — a revoke wins over an answer given at the same time (the promise rejects, saying so).
   */
  remember(
    sessionId: string,
    grant: ApprovalGrant,
    how: RememberFor,
    askedAt?: Date,
  ): void | Promise<void>;
}

export interface ApprovalMemoryOptions {
  /** The project "always" answers belong to (its real path is the key). */
  project: string;
  /** `$HERMES_HOME`; default: the environment, else `~/.hermes`. */
  home?: string;
}

export function createApprovalMemory(options: ApprovalMemoryOptions): ApprovalMemory {
  const home = hermesHome(options.home);
  const project = projectKey(options.project);
  const sessions = new Map<string, Map<string, ApprovalGrant>>();
  return {
    covers(sessionId, call) {
      const session = sessions.get(sessionId);
      if (session !== undefined) {
        for (const grant of session.values()) if (grantCovers(grant, call)) return 'session';
      }
      // Read each time: a revoke from the CLI takes effect at the next ask.
      const stored = projectApprovals(home, project).approvals;
      return stored.some((grant) => grantCovers(grant, call)) ? 'always' : undefined;
    },
    async remember(sessionId, grant, how, askedAt) {
      if (how === 'always') {
        await storeApproval(home, project, grant, askedAt);
        return;
      }
      const session = sessions.get(sessionId) ?? new Map<string, ApprovalGrant>();
      sessions.set(sessionId, session);
      session.set(grantKey(grant), grant);
    },
  };
}
