import { join } from 'node:path';
import {
  block,
  createRuntime,
  type ObserverPayload,
  restrictTools,
  rewrite,
} from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../src/host/bridge/json-rpc.js';
import { dispatch, type Served, serving } from '../../../src/host/bridge/methods.js';
import { ext } from '../../support/helpers.js';

// The runtime's project (createRuntime's root), with folders that exist: the protected-ground
// rule sandboxes a command in a folder it cannot resolve, which would hide the names under test.
const CWD = process.cwd();

/**
 * A host that says `tool_dialect: "hermes-agent"` at `initialize` (the Hermes agent's plugin)
 * sends Hermes' calls: extensions see them by the names its shell hooks give them, and the
 * answers go back in Hermes' names.
 */
describe('the bridge and the Hermes agent’s tool names', () => {
  async function served(dialect: string | undefined) {
    const seen: { toolName: string; toolArgs: unknown }[] = [];
    const events: ObserverPayload[] = [];
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('guard', (h) => {
          h.on(
            'intercept_tool_call',
            (e) => void seen.push({ toolName: e.toolName, toolArgs: e.toolArgs }),
          );
          h.on('intercept_tool_call', () => block('no writes'), { tools: ['write'] });
          h.on(
            'intercept_tool_call',
            (e) => rewrite({ ...e.toolArgs, command: `${String(e.toolArgs.command)} -la` }),
            { tools: ['bash'] },
          );
          h.on('before_llm_call', () =>
            restrictTools((name) => name !== 'bash' && name !== 'patch'),
          );
          h.observe('pre_tool_call', (p) => void events.push(p));
        }),
      ],
    });
    const s: Served = serving(async () => runtime, CWD, memoryLogger());
    await dispatch(s, 'initialize', dialect === undefined ? {} : { tool_dialect: dialect });
    const { turn_id } = (await dispatch(s, 'turn/start', { session_id: 's' })) as {
      turn_id: string;
    };
    const call = (name: string, args: Record<string, unknown>) =>
      dispatch(s, 'intercept_tool_call', { turn_id, tool_name: name, tool_args: args }) as Promise<{
        blocked: boolean;
        value: Record<string, unknown>;
      }>;
    return { s, turn_id, seen, events, call };
  }

  it('a guard for `write` refuses a write_file; a `bash` rewrite comes back as the terminal call, its workdir as it was', async () => {
    const { seen, call } = await served('hermes-agent');
    expect((await call('write_file', { path: 'a.md', content: 'x' })).blocked).toBe(true);
    const bare = await call('terminal', { command: 'ls', timeout: 5 });
    expect(bare.value).toEqual({ command: 'ls -la', timeout: 5 });
    const inSub = await call('terminal', { command: 'ls', workdir: 'src' });
    expect(inSub.value).toEqual({ command: 'ls -la', workdir: 'src' });
    const edit = await call('patch', {
      mode: 'replace',
      path: 'a.ts',
      old_string: 'a',
      new_string: 'b',
    });
    expect(edit.value).toEqual({ mode: 'replace', path: 'a.ts', old_string: 'a', new_string: 'b' });
    expect(seen).toEqual([
      { toolName: 'write', toolArgs: { path: 'a.md', content: 'x' } },
      { toolName: 'bash', toolArgs: { command: 'ls', timeout: 5, workdir: CWD } },
      { toolName: 'bash', toolArgs: { command: 'ls', workdir: join(CWD, 'src') } },
      { toolName: 'edit', toolArgs: { path: 'a.ts', old_string: 'a', new_string: 'b' } },
    ]);
  });

  it('restrictTools in the framework’s names takes Hermes’ tools out; the calls after it are judged by the same names', async () => {
    const { s, turn_id, call } = await served('hermes-agent');
    const request = (await dispatch(s, 'before_llm_call', {
      turn_id,
      system_prompt: '',
      messages: [],
      tools: ['read_file', 'terminal', 'patch', 'search_files'],
    })) as { value: { tools: string[]; tool_restrictions: { hidden: string[] }[] } };
    // `patch` is `edit` too (its `mode: "replace"`), which is kept: the tool stays.
    expect(request.value.tools).toEqual(['read_file', 'patch', 'search_files']);
    expect(request.value.tool_restrictions[0]?.hidden).toEqual(['terminal']);
    expect((await call('terminal', { command: 'ls' })).blocked).toBe(true);
    expect((await call('patch', { mode: 'patch', patch: '*** Begin Patch' })).blocked).toBe(true);
    expect((await call('read_file', { path: 'a.md' })).blocked).toBe(false);
  });

  it('observers are told a Hermes tool call by the framework’s name', async () => {
    const { s, events } = await served('hermes-agent');
    await dispatch(s, 'event', {
      event: 'pre_tool_call',
      tool_name: 'terminal',
      args: { command: 'ls' },
      session_id: 's',
    });
    expect(events).toMatchObject([{ tool_name: 'bash', args: { command: 'ls', workdir: CWD } }]);
  });

  it('a host that names no dialect has its calls judged by the names it sends', async () => {
    const { seen, call } = await served(undefined);
    expect((await call('write_file', { path: 'a.md' })).blocked).toBe(false);
    expect((await call('terminal', { command: 'ls' })).value).toEqual({ command: 'ls' });
    expect(seen.map((c) => c.toolName)).toEqual(['write_file', 'terminal']);
  });

  it('refuses a dialect it does not know, naming those it does', async () => {
    await expect(served('cursor')).rejects.toThrow(RpcError);
    await expect(served('cursor')).rejects.toThrow(/tool_dialect must be one of hermes-agent/);
  });
});
