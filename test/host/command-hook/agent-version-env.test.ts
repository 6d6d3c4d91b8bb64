import { describe, expect, it } from 'vitest';
import { agentVersionFromEnv } from '../../../src/host/command-hook/agent-version-env.js';

const claude = { name: 'claude-code' } as const;
const codex = { name: 'codex' } as const;

describe('agentVersionFromEnv', () => {
  it('reads both shapes of AI_AGENT Claude Code has set for its hooks', () => {
    // The values the real programs set (2.1.120 and 2.1.200, 2.1.330).
    expect(agentVersionFromEnv(claude, { AI_AGENT: 'claude-code/2.1.120/harness' })).toEqual([
      2, 1, 120,
    ]);
    expect(agentVersionFromEnv(claude, { AI_AGENT: 'claude-code_2-1-330_harness' })).toEqual([
      2, 1, 330,
    ]);
    expect(agentVersionFromEnv(claude, { AI_AGENT: 'claude-code_2-1-200_agent' })).toEqual([
      2, 1, 200,
    ]);
  });

  it('tells nothing when the variable is missing or names anything else', () => {
    for (const value of [
      undefined,
      '',
      'codex_0-169-0',
      'claude-code',
      'claude-code_2-1_harness',
      'claude-code/2-1-330/harness',
      'claude-code_2.1.330_harness',
      'x-claude-code_2-1-330_harness',
      'claude-code_2-1-330_harness extra',
      'claude-code_2-1-330_harness\n',
      'claude-code_99999999-1-330_harness',
    ]) {
      expect(agentVersionFromEnv(claude, { AI_AGENT: value }), String(value)).toBeUndefined();
    }
    expect(agentVersionFromEnv(claude, {})).toBeUndefined();
  });

  it('never reads a version for Codex, which gives its hooks none', () => {
    expect(agentVersionFromEnv(codex, { AI_AGENT: 'claude-code_2-1-330_harness' })).toBeUndefined();
  });

  it('reads the process environment by default', () => {
    const before = process.env.AI_AGENT;
    process.env.AI_AGENT = 'claude-code_2-1-301_harness';
    try {
      expect(agentVersionFromEnv(claude)).toEqual([2, 1, 301]);
    } finally {
      if (before === undefined) delete process.env.AI_AGENT;
      else process.env.AI_AGENT = before;
    }
  });
});
