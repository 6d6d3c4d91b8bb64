import { describe, expect, it } from 'vitest';
import { older } from '../../../src/host/command-hook/agent-version.js';
import {
  claudeCode as CLAUDE_CODE,
  codex as CODEX,
} from '../../../src/host/command-hook/agents.js';
import {
  SUBAGENT_COVERAGE,
  subagentCoverage,
} from '../../../src/host/command-hook/subagent-coverage.js';

describe('subagentCoverage: the versions seen to send their subagents’ calls to hooks', () => {
  it('covers Claude Code from 2.1.70, the first version after which every one checked did', () => {
    for (const version of [
      [2, 1, 70],
      [2, 1, 120],
      [2, 1, 330],
      [2, 2, 0],
      [3, 0, 0],
    ] as const) {
      expect(subagentCoverage(CLAUDE_CODE, version), version.join('.')).toEqual({ covered: true });
    }
  });

  it('does not cover the versions whose subagent calls came without agent_id, and says so', () => {
    for (const version of [
      [2, 0, 0],
      [2, 1, 50],
      [2, 1, 68],
      [2, 1, 69],
    ] as const) {
      const coverage = subagentCoverage(CLAUDE_CODE, version);
      expect(coverage.covered, version.join('.')).toBe(false);
      expect(coverage.reason).toContain(`Claude Code ${version.join('.')}`);
      expect(coverage.reason).toContain('agent_id');
    }
  });

  it('fails closed below every row and when the version cannot be told', () => {
    expect(subagentCoverage(CLAUDE_CODE, [1, 0, 128])).toMatchObject({
      covered: false,
      reason: expect.stringContaining('older than every version'),
    });
    expect(subagentCoverage(CLAUDE_CODE, undefined)).toMatchObject({
      covered: false,
      reason: expect.stringContaining('cannot tell which version of Claude Code'),
    });
    expect(subagentCoverage(CODEX, [0, 168, 9])).toMatchObject({
      covered: false,
      reason: expect.stringContaining('Codex 0.168.9 is older than every version'),
    });
    expect(subagentCoverage(CODEX, undefined).covered).toBe(false);
  });

  it('covers Codex from 0.169.0, the version checked', () => {
    expect(subagentCoverage(CODEX, [0, 169, 0])).toEqual({ covered: true });
    expect(subagentCoverage(CODEX, [0, 170, 2])).toEqual({ covered: true });
  });

  it('keeps each agent’s rows in order, each naming the versions it was checked on', () => {
    for (const rows of Object.values(SUBAGENT_COVERAGE)) {
      for (const [index, row] of (rows ?? []).entries()) {
        expect(row.evidence).toMatch(/\d+\.\d+\.\d+/);
        const next = rows?.[index + 1];
        if (next !== undefined) expect(older(row.from, next.from)).toBe(true);
      }
    }
  });
});
