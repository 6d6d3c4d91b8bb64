import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';
type Event = Record<string, unknown>;

/**
 * At the end of a turn the hook checks that every tool call of the turn reached it: a call whose
 * outcome the agent reported (`PostToolUse`, `PostToolUseFailure`, Claude Code's `PostToolBatch`)
 * but which had no `PreToolUse` decision ran unchecked — a matcher that skipped it, a hook that
 * did not start, a subagent. The user is told once per session, at the end of the turn.
 */
function setup(agent: Agent, files: Record<string, string> = {}) {
  const project = tree({ '.git/HEAD': '' });
  const home = tree({ 'config.yaml': 'extensions: {}\n', ...files });
  const base = (turn = 't1') => ({
    session_id: `${agent}-coverage`,
    ...(agent === 'codex' ? { turn_id: turn, model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd: project,
    permission_mode: 'default',
  });
  const tool = (id: string, name = 'Bash', input: Event = { command: 'ls' }) => ({
    tool_name: name,
    tool_input: input,
    tool_use_id: id,
  });
  const events = (turn = 't1') => ({
    prompt: (): Event => ({ ...base(turn), hook_event_name: 'UserPromptSubmit', prompt: 'go' }),
    pre: (id: string, name?: string): Event => ({
      ...base(turn),
      hook_event_name: 'PreToolUse',
      ...tool(id, name),
    }),
    post: (id: string, name?: string): Event => ({
      ...base(turn),
      hook_event_name: 'PostToolUse',
      ...tool(id, name),
      tool_response: agent === 'codex' ? 'ok' : { stdout: 'ok', stderr: '', interrupted: false },
    }),
    failure: (id: string, name?: string): Event => ({
      ...base(turn),
      hook_event_name: 'PostToolUseFailure',
      ...tool(id, name),
      error: 'exit 1',
    }),
    batch: (...ids: Array<[string, string]>): Event => ({
      ...base(turn),
      hook_event_name: 'PostToolBatch',
      tool_calls: ids.map(([id, name]) => ({ ...tool(id, name), tool_response: 'ok' })),
    }),
    stop: (): Event => ({ ...base(turn), hook_event_name: 'Stop', stop_hook_active: false }),
  });
  return { home, events };
}

/** Each event in turn; the last one's answer (undefined: nothing printed), held to the agent's schema. */
async function send(agent: Agent, home: string, ...events: Event[]) {
  let last: Record<string, unknown> | undefined;
  for (const event of events) {
    const answer = await runHook(agent, home, event);
    expect(answer.code, answer.stderr).toBe(0);
    last = answer.stdout === '' ? undefined : JSON.parse(answer.stdout);
    if (last !== undefined) {
      const checked = answerSchema(agent, String(event.hook_event_name)).safeParse(last);
      expect(checked.error?.issues, JSON.stringify(last)).toBeUndefined();
    }
  }
  return last;
}

const unchecked =
  /^Hermes: (\d+) tool calls? of this turn ran without a decision of the hermes hook \(([^)]*)\)/;

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s checks at the end of a turn that every tool call reached it',
  { timeout: 60_000 },
  (agent) => {
    it('says nothing when every reported call was decided', async () => {
      const { home, events } = setup(agent);
      const e = events();
      const stop = await send(agent, home, e.prompt(), e.pre('c1'), e.post('c1'), e.stop());
      expect(stop).toBeUndefined();
    });

    it('tells the user, at Stop, how many calls ran undecided and of which tools — once a session', async () => {
      const { home, events } = setup(agent);
      const e = events('t1');
      const stop = await send(
        agent,
        home,
        e.prompt(),
        e.pre('c1'),
        e.post('c1'),
        e.post('c2', 'Write'),
        e.post('c3', 'mcp__fs__write_file'),
        // Reported twice (Claude Code's PostToolUse and PostToolBatch name the same call): one call.
        ...(agent === 'claude-code' ? [e.batch(['c1', 'Bash'], ['c2', 'Write'])] : []),
        e.stop(),
      );
      expect(stop).toEqual({ systemMessage: expect.stringMatching(unchecked) });
      const [, count, tools] = unchecked.exec(String(stop?.systemMessage)) ?? [];
      expect(count).toBe('2');
      expect(tools).toBe('Write, mcp__fs__write_file');
      expect(String(stop?.systemMessage)).toContain('hermes extensions doctor');
      expect(String(stop?.systemMessage)).toContain(`hermes hook install ${agent}`);

      // The next turn has an undecided call too: the user was told already this session.
      const next = events('t2');
      expect(await send(agent, home, next.prompt(), next.post('c4'), next.stop())).toBeUndefined();
    });

    it('counts a call the agent reported only as failed, and one only in a batch', async () => {
      const { home, events } = setup(agent);
      const e = events();
      const reports =
        agent === 'claude-code'
          ? [e.failure('c1', 'Edit'), e.batch(['c2', 'Read'])]
          : [e.post('c1', 'apply_patch')];
      const stop = await send(agent, home, e.prompt(), ...reports, e.stop());
      const [, count, tools] = unchecked.exec(String(stop?.systemMessage)) ?? [];
      expect([count, tools]).toEqual(
        agent === 'claude-code' ? ['2', 'Edit, Read'] : ['1', 'apply_patch'],
      );
    });

    it('tells it on the answer that ends the turn after tools, when an extension ends it there', async () => {
      const { home, events } = setup(agent, {
        'extensions/stopper.ts': tsExtension(
          'stopper',
          `hermes.on('before_llm_call', (e) => (e.iteration ?? 0) > 0 ? block('enough') : undefined);`,
        ),
      });
      const e = events();
      const after = agent === 'codex' ? e.post('c1') : e.batch(['c1', 'Bash']);
      const ended = await send(agent, home, e.prompt(), after);
      expect(ended).toMatchObject({ systemMessage: expect.stringMatching(unchecked) });
      expect(ended).toMatchObject(agent === 'codex' ? { continue: false } : { decision: 'block' });
      expect(await send(agent, home, e.stop())).toBeUndefined();
    });
  },
);

describe.runIf(built)('hermes hook claude-code at SessionEnd', { timeout: 60_000 }, () => {
  it('tells of an interrupted turn’s undecided calls, and keeps no record of the session', async () => {
    const { home, events } = setup('claude-code');
    const e = events();
    const end = { ...e.stop(), hook_event_name: 'SessionEnd', reason: 'other' };
    const ended = await send('claude-code', home, e.prompt(), e.post('c1', 'Write'), end);
    expect(ended).toEqual({ systemMessage: expect.stringMatching(unchecked) });
    // Neither the turn nor what the session was told is left behind.
    expect(readdirSync(join(home, 'turns')).filter((f) => !f.startsWith('.'))).toEqual([]);
  });
});
