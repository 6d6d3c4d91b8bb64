import type { SubagentSpawn } from '../../hooks/subagent-spawn.js';
import { older, type Version } from './agent-version.js';
import type { CommandHookAgent } from './agents.js';

/**
 * Which versions of each agent send their subagents' tool calls to the hooks (a `PreToolUse`
 * with `agent_id` for every call a subagent makes), so that a spawn can be let through and each
 * of the subagent's calls judged. Rows are evidence: each names the versions it was checked on.
 * A version below every row, or one the hook cannot tell, is not covered (fail closed).
 */
export interface CoverageRow {
  /** The first version this row holds for (up to the next row's `from`). */
  from: Version;
  covered: boolean;
  /** What was seen, and on which versions: shown to the user when not covered. */
  evidence: string;
}

export const SUBAGENT_COVERAGE: Readonly<Record<CommandHookAgent['name'], readonly CoverageRow[]>> =
  {
    'claude-code': [
      {
        from: [2, 0, 0],
        covered: false,
        evidence:
          "2.0.0, 2.1.0, 2.1.50, 2.1.62, 2.1.63, 2.1.67 and 2.1.68 send a subagent's tool calls as PreToolUse (a deny there held on 2.0.0, 2.1.0 and 2.1.50), but without the subagent's agent_id, so a hook cannot tell them from the main agent's (2.1.64 sent it, twice over, and 2.1.67 did not)",
      },
      {
        from: [2, 1, 70],
        covered: true,
        evidence:
          "2.1.70, 2.1.75, 2.1.100, 2.1.116, 2.1.118, 2.1.119, 2.1.120, 2.1.150, 2.1.200, 2.1.300 and 2.1.330 send every tool call of a subagent (a background one too, from 2.1.200) as PreToolUse with the subagent's agent_id; a deny there held on 2.1.100, 2.1.120, 2.1.200, 2.1.300 and 2.1.330",
      },
    ],
    // Older versions were not checked: below this row a spawn is not covered.
    codex: [
      {
        from: [0, 169, 0],
        covered: true,
        evidence:
          "0.169.0 sends every tool call of a subagent (default multi_agent tools and multi_agent_v2) as PreToolUse with the subagent's agent_id, and a deny there held; a deny of spawn_agent starts no subagent",
      },
    ],
    // No version was checked (docs/cursor.md, docs/antigravity.md): a spawn is never covered.
    cursor: [],
    antigravity: [],
  };

/** Whether a subagent started under `version` of `agent` has its calls judged. */
export function subagentCoverage(
  agent: Pick<CommandHookAgent, 'name' | 'title'>,
  version: Version | undefined,
): SubagentSpawn {
  if (version === undefined) {
    return {
      covered: false,
      reason: `the hook cannot tell which version of ${agent.title} runs, so it cannot tell whether the subagent's tool calls reach the guards`,
    };
  }
  const rows = SUBAGENT_COVERAGE[agent.name];
  const row = [...rows].reverse().find((candidate) => !older(version, candidate.from));
  const shown = version.join('.');
  if (row === undefined) {
    return {
      covered: false,
      reason: `${agent.title} ${shown} is older than every version known to send its subagents' tool calls to hooks`,
    };
  }
  return row.covered
    ? { covered: true }
    : { covered: false, reason: `${agent.title} ${shown}: ${row.evidence}` };
}
