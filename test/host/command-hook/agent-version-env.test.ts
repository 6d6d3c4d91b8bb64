import { describe, expect, it } from 'vitest';
import { agentVersionFromEnv } from '../../../src/host/command-hook/agent-version-env.js';
import { tree } from '../../support/fixtures.js';

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

  it("reads Codex's version from the npm package it names, and nothing else", () => {
    const root = (manifest: unknown) =>
      tree({ 'package.json': typeof manifest === 'string' ? manifest : JSON.stringify(manifest) });
    const of = (dir: string | undefined) =>
      agentVersionFromEnv(codex, { CODEX_MANAGED_PACKAGE_ROOT: dir });
    expect(of(root({ name: '@openai/codex', version: '0.169.0' }))).toEqual([0, 169, 0]);
    for (const manifest of [
      { name: 'codex', version: '0.169.0' },
      { name: '@openai/codex', version: '0.170.0-alpha.1' },
      { name: '@openai/codex', version: 169 },
      { name: '@openai/codex' },
      'not json',
      [],
    ]) {
      expect(of(root(manifest)), JSON.stringify(manifest)).toBeUndefined();
    }
    expect(of(tree())).toBeUndefined();
    expect(of('')).toBeUndefined();
    expect(of(undefined)).toBeUndefined();
    // Claude Code's variable says nothing of Codex.
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
