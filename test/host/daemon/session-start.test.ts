import { describe, expect, it } from 'vitest';
import { COMMAND_HOOK_AGENTS } from '../../../src/host/command-hook/agents.js';
import { NO_DECISION, printed, render } from '../../../src/host/command-hook/answers.js';
import {
  isSessionStart,
  QUIET_SESSION_START,
  SESSION_START,
} from '../../../src/host/daemon/protocol.js';
import { sessionEnv } from '../../../src/host/daemon/warm.js';

describe("a session's start, as the hook client tells it", () => {
  it('is answered by the client with nothing exactly where the hook answers it so: the agents installed for it', () => {
    const installed = Object.values(COMMAND_HOOK_AGENTS)
      .filter((agent) => agent.installEvents.includes(SESSION_START))
      .map((agent) => agent.name);
    expect(installed.sort()).toEqual([...QUIET_SESSION_START].sort());
    for (const name of QUIET_SESSION_START) {
      const agent = COMMAND_HOOK_AGENTS[name];
      expect(agent && printed(render(agent, SESSION_START, NO_DECISION))).toEqual({
        stdout: '',
        stderr: '',
        exitCode: 0,
      });
    }
  });

  it('is only an event named SessionStart: a tool call that mentions the name is not one', () => {
    const start = { session_id: 's', cwd: '/p', hook_event_name: 'SessionStart' };
    expect(isSessionStart('claude-code', JSON.stringify(start))).toBe(true);
    expect(isSessionStart('codex', JSON.stringify(start))).toBe(true);
    const call = {
      session_id: 's',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo \'{"hook_event_name":"SessionStart"}\'' },
    };
    expect(isSessionStart('claude-code', JSON.stringify(call))).toBe(false);
    // A name given twice is the last one, as every JSON reader of the hook takes it.
    const twice =
      '{"hook_event_name":"SessionStart","tool_name":"Bash","hook_event_name":"PreToolUse"}';
    expect(isSessionStart('claude-code', twice)).toBe(false);
    expect(isSessionStart('claude-code', `${JSON.stringify(start)} trailing`)).toBe(false);
    // An agent whose answer to it is not nothing is left to the hook.
    expect(isSessionStart('cursor', JSON.stringify(start))).toBe(false);
  });

  it('loads the runtime without what Claude Code sets for its SessionStart hooks alone', () => {
    const agent = COMMAND_HOOK_AGENTS['claude-code'];
    if (agent === undefined) throw new Error('no claude-code');
    const env = { HOME: '/h', CLAUDE_ENV_FILE: '/h/env.sh', CLAUDE_PROJECT_DIR: '/p' };
    expect(sessionEnv(agent, env)).toEqual({ HOME: '/h', CLAUDE_PROJECT_DIR: '/p' });
    expect(env.CLAUDE_ENV_FILE).toBe('/h/env.sh');
  });
});
