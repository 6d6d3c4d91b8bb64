import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryAcquireOwnedLock } from '../../../src/fs/owned-lock.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { distModule, runNodeScript } from '../../support/node-script.js';
import { built, runHook } from '../../support/run-bin.js';

const TURN_STORE = distModule('host/command-hook/turn-store.js');

/** A process that takes the session's lock in the store and holds it until it is killed. */
function lockHolder(home: string, session: string) {
  return runNodeScript(`
    import { TurnStore } from ${TURN_STORE};
    setInterval(() => {}, 1000);
    await new TurnStore(${JSON.stringify(home)}).update(${JSON.stringify(session)}, {}, async () => {
      process.stdout.write('holding\\n');
      await new Promise(() => {});
    });
  `);
}

/**
 * A hook process's update of the session's turn that takes `holdMs`: it reads a counter, waits,
 * and writes it back plus one. `options` are the store's.
 */
function slowIncrement(home: string, session: string, holdMs: number, options: object) {
  return runNodeScript(`
    import { TurnStore } from ${TURN_STORE};
    const store = new TurnStore(${JSON.stringify(home)}, ${JSON.stringify(options)});
    await store.update(${JSON.stringify(session)}, {}, async (turn) => {
      const count = typeof turn.state.count === 'number' ? turn.state.count : 0;
      await new Promise((resolve) => setTimeout(resolve, ${holdMs}));
      return { result: undefined, state: { ...turn.state, count: count + 1 } };
    });
  `);
}

function storedState(home: string, session: string): Record<string, unknown> {
  const file = join(home, 'turns', `${encodeURIComponent(session)}.json`);
  return JSON.parse(readFileSync(file, 'utf8')).state;
}

describe.runIf(built)('the command hooks’ turn-state store, across processes', () => {
  it.each(['claude-code', 'codex'] as const)(
    'lets the next %s hook go on at once when a hook was killed holding the lock',
    async (agent) => {
      const home = tree({ 'config.yaml': 'extensions: {}\n' });
      const project = tree({ '.git/HEAD': '' });
      const holder = lockHolder(home, 'killed-session');
      await holder.printed('holding');
      holder.child.kill('SIGKILL');
      expect(await holder.exited).toBe('SIGKILL');

      const answer = await runHook(agent, home, {
        hook_event_name: 'PreToolUse',
        session_id: 'killed-session',
        turn_id: 't1',
        cwd: project,
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      });
      expect(answer.code, answer.stderr).toBe(0);
      // No extension guards anything here: the call goes on, with no refusal and no message.
      expect(answer.stdout).toBe('');
      expect(answer.stderr).toBe('');
    },
    60_000,
  );

  it('never takes the lock from a live holder, however long it holds it: no update is lost', async () => {
    const home = tree();
    const processes = 4;
    // Each holds the lock past what used to be its staleness limit (30 s, 50 ms when this was
    // reproduced), and the others wait for it.
    const updates = Array.from({ length: processes }, () =>
      slowIncrement(home, 'slow-session', 400, { lockTimeoutMs: 60_000 }),
    );
    for (const update of updates) expect(await update.exited, update.stderr()).toBe(0);
    expect(storedState(home, 'slow-session')).toEqual({ count: processes });
  }, 60_000);
});

/** Keeps what the turn's tool calls ask it to in the turn's state, Dates and Maps included. */
const stateKeeper = tsExtension(
  'state-keeper',
  `hermes.on('transform_user_input', (e) => { if (e.userMessage === 'keep a map') e.state.index = new Map([['a', 1]]); });
  hermes.on('intercept_tool_call', (e) => {
    if (e.state.earlier) return block('the state of an earlier turn leaked into this one');
    const command = String(e.toolArgs.command);
    if (command === 'date') e.state.startedAt = new Date();
    else if (command === 'bigint') e.state['files seen'] = { bytes: 10n };
    else if (command === 'cycle') { const node = {}; node.self = node; e.state.graph = [node]; }
    else e.state.earlier = true;
  });`,
);

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s and its turn-state store',
  (agent) => {
    function setup(files: Record<string, string> = {}) {
      const home = tree({ 'config.yaml': 'extensions: {}\n', ...files });
      const project = tree({ '.git/HEAD': '' });
      const base = { session_id: `${agent}-session`, turn_id: 't1', cwd: project };
      const call = (command: string) => ({
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
      });
      const prompt = (text: string) => ({
        ...base,
        hook_event_name: 'UserPromptSubmit',
        prompt: text,
      });
      return { home, project, base, call, prompt };
    }

    async function ask(home: string, event: unknown) {
      const answer = await runHook(agent, home, event);
      expect(answer.code, answer.stderr).toBe(0);
      expect(answer.stderr).not.toMatch(/\n\s+at /);
      return answer.stdout === '' ? undefined : JSON.parse(answer.stdout);
    }

    const denial = (output: { hookSpecificOutput?: Record<string, unknown> } | undefined) => {
      expect(output?.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      return String(output?.hookSpecificOutput?.permissionDecisionReason);
    };

    it('refuses a tool call whose handler put what is not JSON data in the state, naming the key', async () => {
      const { home, call } = setup({ 'extensions/state-keeper.ts': stateKeeper });
      expect(denial(await ask(home, call('date')))).toMatch(
        /^Hermes could not check this call, so it is refused: the turn state cannot be saved: state\.startedAt: a Date is not JSON data/,
      );
      expect(denial(await ask(home, call('bigint')))).toContain(
        'state["files seen"].bytes: a bigint is not JSON data',
      );
      expect(denial(await ask(home, call('cycle')))).toContain(
        'state.graph[0].self: a cycle is not JSON data',
      );
    }, 60_000);

    it('lets a prompt whose handler kept a Map go on, with a message, and starts the tool calls afresh', async () => {
      const { home, call, prompt } = setup({ 'extensions/state-keeper.ts': stateKeeper });
      await ask(home, prompt('first'));
      expect(await ask(home, call('ls'))).toBeUndefined();
      // Codex names its turns; Claude Code does not, and the next prompt starts its next turn.
      const next = agent === 'codex' ? { turn_id: 't2' } : {};
      expect(await ask(home, { ...prompt('keep a map'), ...next })).toEqual({
        systemMessage: expect.stringContaining('state.index: a Map is not JSON data'),
      });
      // The earlier turn's state is gone, not carried into this one.
      expect(await ask(home, { ...call('ls'), ...next })).toBeUndefined();
    }, 60_000);

    it('refuses a tool call when a live hook holds the lock past the wait, and lets the prompt and Stop go on', async () => {
      const { home, base, call, prompt } = setup();
      const holder = lockHolder(home, base.session_id);
      await holder.printed('holding');
      const [toolCall, userPrompt, stop] = await Promise.all([
        ask(home, call('ls')),
        ask(home, prompt('hello')),
        ask(home, { ...base, hook_event_name: 'Stop', stop_hook_active: false }),
      ]);
      const lock = join(home, 'turns', `${base.session_id}.lock`);
      const why = `timed out after 10 s waiting for the lock ${lock}, held by process ${holder.child.pid} (still running)`;
      expect(denial(toolCall)).toContain(why);
      expect(userPrompt).toEqual({ systemMessage: expect.stringContaining(why) });
      expect(stop).toEqual({ systemMessage: expect.stringContaining(why) });
    }, 60_000);

    it('removes, at most once an hour, what turns that never ended left behind', async () => {
      const { home, project } = setup();
      const turns = join(home, 'turns');
      write(turns, {
        'abandoned.json': '{"turnId":"t","state":{}}',
        'abandoned.told': '[]',
        'abandoned.root': '{"from":"/p","root":"/p"}',
        'written-half.json.4242.tmp': '{',
        'older-version.json.lock/.keep': '',
        'busy.json': '{"turnId":"t","state":{}}',
        'recent.json': '{"turnId":"t","state":{}}',
      });
      // A lock whose owner is gone, and one of a live process (this one), both long untouched.
      write(turns, { 'dead-owner.lock': readFileSync(await killedOwnersLock(home), 'utf8') });
      const live = tryAcquireOwnedLock(join(turns, 'busy.lock'));
      const twoDaysAgo = (Date.now() - 2 * 24 * 60 * 60 * 1000) / 1000;
      for (const name of readdirSync(turns).filter((n) => n !== 'recent.json'))
        utimesSync(join(turns, name), twoDaysAgo, twoDaysAgo);

      const stop = { session_id: 'another', cwd: project, hook_event_name: 'Stop' };
      expect(await ask(home, stop)).toBeUndefined();
      live?.release();
      // The Stop's own session is pinned where it came from (session-root.ts).
      expect(readdirSync(turns).sort()).toEqual([
        '.swept',
        'another.root',
        'busy.json',
        'recent.json',
      ]);

      // Swept within the hour: the next hooks do not look again.
      write(turns, { 'abandoned.json': '{"turnId":"t","state":{}}' });
      utimesSync(join(turns, 'abandoned.json'), twoDaysAgo, twoDaysAgo);
      expect(await ask(home, stop)).toBeUndefined();
      expect(existsSync(join(turns, 'abandoned.json'))).toBe(true);
    }, 60_000);
  },
);

/** The lock file a process left when it was killed holding it (moved out of the way). */
async function killedOwnersLock(home: string): Promise<string> {
  const holder = lockHolder(home, 'killed');
  await holder.printed('holding');
  holder.child.kill('SIGKILL');
  await holder.exited;
  return join(home, 'turns', 'killed.lock');
}
