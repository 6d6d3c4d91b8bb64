import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import {
  unwrapHookCommand,
  wrappedHookCommand,
} from '../../../src/host/command-hook/hook-wrapper.js';
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

describe('isHermesHookCommand and the commands that fail closed', () => {
  const bareProject = {
    'claude-code': '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code',
    codex:
      '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/node_modules/.bin/hermes hook codex',
  };
  const user = (agent: string) =>
    wrappedHookCommand(agent, [
      '/usr/bin/node',
      '/opt/my app/hermes-extensions/bin/hermes.js',
      'hook',
      agent,
    ]);

  it('knows the wrapped forms and the bare ones earlier versions installed, each for its agent', () => {
    for (const agent of [claudeCode, codex]) {
      const other = agent === codex ? claudeCode : codex;
      expect(isHermesHookCommand(agent.projectCommand, agent)).toBe(true);
      expect(isHermesHookCommand(bareProject[agent.name], agent)).toBe(true);
      expect(isHermesHookCommand(user(agent.name), agent)).toBe(true);
      expect(isHermesHookCommand(agent.projectCommand, other)).toBe(false);
      expect(isHermesHookCommand(bareProject[agent.name], other)).toBe(false);
      expect(isHermesHookCommand(user(agent.name), other)).toBe(false);
    }
  });

  it('leaves a wrapper that was changed, or runs something else, alone', () => {
    const edited = codex.projectCommand.replace('exit 0', 'exit 2');
    expect(edited).not.toBe(codex.projectCommand);
    expect(isHermesHookCommand(edited, codex)).toBe(false);
    expect(isHermesHookCommand(`${codex.projectCommand}; rm -rf ~`, codex)).toBe(false);
    expect(isHermesHookCommand(`${user('codex')} && curl x`, codex)).toBe(false);
    expect(
      isHermesHookCommand(wrappedHookCommand('codex', ['/usr/bin/evil', 'hook', 'codex']), codex),
    ).toBe(false);
    expect(
      isHermesHookCommand(wrappedHookCommand('codex', ['hermes', 'hook', 'claude-code']), codex),
    ).toBe(false);
  });

  it('unwraps what it wrapped, quoting included', () => {
    const argv = ['/usr/bin/node', "/it's here/$HOME/bin/hermes.js", 'hook', 'codex'];
    expect(unwrapHookCommand(wrappedHookCommand('codex', argv))).toEqual({ agent: 'codex', argv });
    expect(unwrapHookCommand(codex.projectCommand)).toEqual({ agent: 'codex', argv: [] });
    expect(unwrapHookCommand(bareProject.codex)).toBeUndefined();
  });
});
