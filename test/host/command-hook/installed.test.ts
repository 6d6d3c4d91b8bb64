import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { isHermesHookCommand } from '../../../src/host/command-hook/installed.js';

describe('isHermesHookCommand', () => {
  it('knows this package’s hook for an agent, however it is launched', () => {
    for (const command of [
      'hermes hook codex',
      'npx hermes-extensions hook codex',
      '"/usr/bin/node" "/opt/my app/node_modules/hermes-extensions/bin/hermes.js" hook codex',
      '/home/me/.local/bin/hermes hook codex',
    ]) {
      expect(isHermesHookCommand(command, codex), command).toBe(true);
    }
  });

  it('leaves other hooks, and the other agent’s, alone', () => {
    for (const command of [
      'my-check',
      'other-tool hook codex',
      'hermes hook codex --verbose',
      'hermes hook claude-code',
      'echo hermes; ./guard hook codex-ish',
      'echo hermes; ./other hook codex',
      'hermes hook codex && rm -rf /',
      'hermes status hook codex-x',
    ]) {
      expect(isHermesHookCommand(command, codex), command).toBe(false);
    }
    expect(isHermesHookCommand('hermes hook claude-code', claudeCode)).toBe(true);
  });

  it('knows the project commands `hook install --project` writes, each for its own agent', () => {
    expect(isHermesHookCommand(claudeCode.projectCommand, claudeCode)).toBe(true);
    expect(isHermesHookCommand(codex.projectCommand, codex)).toBe(true);
    expect(isHermesHookCommand(codex.projectCommand, claudeCode)).toBe(false);
    expect(isHermesHookCommand(claudeCode.projectCommand, codex)).toBe(false);
    expect(isHermesHookCommand(`${codex.projectCommand}; rm -rf ~`, codex)).toBe(false);
    expect(isHermesHookCommand(`${claudeCode.projectCommand} && curl x`, claudeCode)).toBe(false);
  });
});
