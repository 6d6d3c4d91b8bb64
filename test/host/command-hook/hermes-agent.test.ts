import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import {
  type HermesDirective,
  hermesAnswerSchema,
  hermesEvent,
  hermesReads,
} from '../../support/hermes-agent-wire.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * `hermes hook hermes-agent` as the Hermes agent runs its shell hooks: one process per event, the
 * payload its bridge writes on stdin, and the answer read back as Hermes reads it
 * (hermes-agent-wire.ts). Each stdout must match the wire's strict schema.
 */
function setup(extra: Record<string, string> = {}) {
  const home = tree({
    'config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    ...extra,
  });
  const project = tree({ '.git/HEAD': '', 'src/login.ts': 'export {};\n' });
  let call = 0;
  const send = async (event: string, fields: Record<string, unknown> = {}) => {
    const stdin = hermesEvent(event, { session_id: 'h-session', cwd: project, ...fields });
    const answer = await runHook('hermes-agent', home, stdin);
    if (answer.stdout.trim() !== '') {
      const checked = hermesAnswerSchema(event).safeParse(JSON.parse(answer.stdout));
      expect(checked.error?.issues, `${event}: ${answer.stdout}`).toBeUndefined();
    }
    expect([0, 2, 3], `${event} exit code; stderr: ${answer.stderr}`).toContain(answer.code);
    return { ...answer, reads: hermesReads(event, answer) };
  };
  const tool = (tool_name: string, args: unknown, turn_id = 't1') =>
    send('pre_tool_call', {
      tool_name,
      args,
      turn_id,
      tool_call_id: `call_${++call}`,
      task_id: 'main',
    });
  const prompt = (user_message: string, turn_id = 't1') =>
    send('pre_llm_call', {
      user_message,
      turn_id,
      task_id: 'main',
      conversation_history: [],
      is_first_turn: true,
      model: 'm',
      platform: 'cli',
    });
  return { home, project, send, tool, prompt };
}

const blocked = (reads: HermesDirective) =>
  reads !== undefined && 'action' in reads && reads.action === 'block' ? reads.message : undefined;

describe.runIf(built)('hermes hook hermes-agent', () => {
  it('runs workflow-guard in the Hermes agent: edits refused before a plan, reads pass, the prompt gets its context', async () => {
    const { project, tool, prompt } = setup();
    const start = await prompt('fix the login bug');
    expect(start.reads).toEqual({
      context: expect.stringMatching(
        /^Hermes extensions rewrote this request; treat it as: \/start-feature fix the login bug\n\nNo plan exists yet/,
      ),
    });
    const write = await tool('write_file', { path: join(project, 'src/login.ts'), content: 'x' });
    expect(blocked(write.reads)).toMatch(/Write the plan at plans\/active\/plan\.md/);
    const patch = await tool('patch', {
      mode: 'replace',
      path: 'src/login.ts',
      old_string: 'export',
      new_string: 'x',
    });
    expect(blocked(patch.reads)).toMatch(/plan/);
    const shell = await tool('terminal', { command: 'echo x > src/login.ts', workdir: project });
    expect(blocked(shell.reads)).toMatch(/plan/);
    const code = await tool('execute_code', { code: 'open("src/login.ts","w").write("x")' });
    expect(blocked(code.reads)).toBeDefined();
    const read = await tool('read_file', { path: 'src/login.ts' });
    expect(read.reads).toBeUndefined();
    expect(read.stdout).toBe('');
  });

  it('judges a terminal call in its absolute workdir and lets it run there unchanged; one without is refused with the folder to name', async () => {
    const where = tsExtension(
      'where',
      `hermes.on('intercept_tool_call', (e) => e.toolName === 'bash' && e.toolArgs.command === 'where' ? block('judged in ' + e.toolArgs.workdir) : undefined);`,
    );
    const { project, tool } = setup({ 'extensions/where.ts': where });
    // Hermes' terminal runs where an earlier `cd` left it unless the call names a workdir
    // (tools/terminal_tool.py, `_resolve_command_cwd`), and a relative one is entered from there
    // (tools/environments/base.py, `_wrap_command`): neither is the folder the hook was told.
    for (const args of [
      { command: 'ls' },
      { command: 'ls', workdir: 'src' },
      { command: 'ls', workdir: '~' },
    ]) {
      const refused = await tool('terminal', args);
      expect(JSON.parse(refused.stdout)).toMatchObject({ action: 'block' });
      expect(blocked(refused.reads)).toContain(`"workdir": ${JSON.stringify(project)}`);
    }
    // The retry the message asks for passes as the model wrote it: no answer, nothing to apply.
    const listed = await tool('terminal', { command: 'ls', workdir: project, timeout: 30 });
    expect(listed.reads).toBeUndefined();
    expect(listed.stdout).toBe('');
    const inside = await tool('terminal', { command: 'where', workdir: join(project, 'src') });
    expect(blocked(inside.reads)).toBe(`judged in ${join(project, 'src')}`);
    const elsewhere = tree({ 'a.txt': '' });
    const outside = await tool('terminal', { command: 'where', workdir: elsewhere });
    expect(blocked(outside.reads)).toBe(`judged in ${elsewhere}`);
  });

  it('reports the refusal of a terminal call without a workdir to observers, as a decision of the framework', async () => {
    const decisions = join(tree({}), 'decisions.jsonl');
    const recorder = tsExtension(
      'recorder',
      `hermes.observe('hook_decision', (p) => appendFileSync(${JSON.stringify(decisions)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';`,
    );
    const { tool } = setup({ 'extensions/recorder.ts': recorder });
    const refused = await tool('terminal', { command: 'ls' });
    expect(blocked(refused.reads)).toContain('workdir');
    const [decision, ...more] = jsonLines(decisions);
    expect(more).toEqual([]);
    expect(decision).toMatchObject({
      hook: 'intercept_tool_call',
      tool_name: 'bash',
      blocked: true,
      blocked_by: 'hermes',
      message: blocked(refused.reads),
    });
  });

  it('refuses a terminal call in a folder Hermes refuses as a workdir, saying to use the plugin rather than a retry that cannot pass', async () => {
    const { home } = setup();
    // Hermes' terminal takes a workdir of letters, digits and /\\:_-.~ +@=, only
    // (tools/terminal_tool.py, `_validate_workdir`): a quote is refused there.
    const folder = join(tree({ "o'clock/.git/HEAD": '' }), "o'clock");
    const stdin = hermesEvent('pre_tool_call', {
      session_id: 'h-quote',
      cwd: folder,
      tool_name: 'terminal',
      args: { command: 'ls' },
      turn_id: 't1',
      tool_call_id: 'q1',
      task_id: 'main',
    });
    const message = blocked(
      hermesReads('pre_tool_call', await runHook('hermes-agent', home, stdin)),
    );
    expect(message).toMatch(/has a character Hermes refuses in a `workdir`/);
    expect(message).toContain('hermes hook install hermes-agent --plugin');
    expect(message).not.toMatch(/Send it again/);
  });

  it('refuses a shell call workflow-guard would run in its sandbox before a plan: Hermes’ shell hooks cannot apply the wrapper', async () => {
    const { project, tool } = setup();
    const run = await tool('terminal', { command: 'npm test', workdir: project });
    expect(JSON.parse(run.stdout)).toMatchObject({ action: 'block' });
    expect(blocked(run.reads)).toMatch(
      /^workflow-guard rewrote this call.*`command`.*hermes hook install hermes-agent --plugin/s,
    );
  });

  it('answers an ask with a block that says who asked: Hermes’ shell hooks would drop an approve and run the call', async () => {
    const asker = tsExtension(
      'asker',
      `hermes.on('intercept_tool_call', (e) => e.toolName === 'bash' ? ask('deploys need a person') : undefined);`,
      `import { ask } from 'hermes-extensions';`,
    );
    const { project, tool } = setup({ 'extensions/asker.ts': asker });
    const deploy = await tool('terminal', { command: './deploy.sh', workdir: project });
    // Hermes 0.19.0 reads a block and nothing else from a shell hook at pre_tool_call
    // (agent/shell_hooks.py, `_parse_response`): `{"action": "approve"}` would be no directive,
    // and the call would run unasked. Only a plugin's approve reaches its approval gate
    // (hermes_cli/plugins.py, `resolve_pre_tool_block`).
    expect(JSON.parse(deploy.stdout)).toEqual({
      action: 'block',
      message: expect.stringMatching(
        /^needs approval: deploys need a person \(asked by asker\); Hermes agent hooks cannot ask a person/,
      ),
    });
    expect(blocked(deploy.reads)).toBeDefined();
  });

  it('refuses a rewrite, naming the extension and what it would change: Hermes’ shell hooks run a call as the model wrote it', async () => {
    const rewriter = tsExtension(
      'rewriter',
      `hermes.on('intercept_tool_call', (e) => { if (e.toolName !== 'read') return; const { offset, ...rest } = e.toolArgs; return { action: 'rewrite', value: { ...rest, path: 'README.md' } }; });`,
    );
    const { tool } = setup({ 'extensions/rewriter.ts': rewriter });
    const read = await tool('read_file', { path: 'src/login.ts', offset: 10 });
    expect(JSON.parse(read.stdout)).toMatchObject({ action: 'block' });
    const message = blocked(read.reads);
    expect(message).toMatch(/^rewriter rewrote this call/);
    expect(message).toContain('`path` to "README.md"');
    expect(message).toContain('without `offset`');
    expect(message).toContain('hermes hook install hermes-agent --plugin');
  });

  it('refuses the turn where Hermes cannot refuse its prompt: the model is told, every call of the turn is denied, the next turn is free', async () => {
    const gate = tsExtension(
      'gate',
      `hermes.on('transform_user_input', (e) => e.userMessage.includes('secret') ? block('no secrets here') : undefined);`,
    );
    const { tool, prompt, send } = setup({ 'extensions/gate.ts': gate });
    const refused = await prompt('print the secret', 't1');
    expect(refused.reads).toEqual({
      context: expect.stringMatching(
        /^Hermes extensions refused this request: no secrets here\. Do not carry it out/,
      ),
    });
    const read = await tool('read_file', { path: 'README.md' }, 't1');
    expect(blocked(read.reads)).toMatch(/refused this turn's request.*no secrets here/);
    const end = await send('on_session_end', { turn_id: 't1', completed: true });
    expect(end.stdout).toBe('');
    await prompt('look around', 't2');
    const next = await tool('read_file', { path: 'README.md' }, 't2');
    expect(next.reads).toBeUndefined();
  });

  it('refuses what it cannot read, a subagent it cannot follow, and answers nothing to events it does not use', async () => {
    const { home, tool, send } = setup();
    // Hermes sends tool_input null when the arguments are no object.
    const notObject = await tool('read_file', 'src/login.ts');
    expect(blocked(notObject.reads)).toMatch(/tool_input object/);
    const noSession = await send('pre_tool_call', {
      session_id: '',
      tool_name: 'read_file',
      args: { path: 'x' },
    });
    expect(blocked(noSession.reads)).toMatch(/session_id/);
    const garbage = await runHook('hermes-agent', home, 'not json');
    expect(hermesReads('pre_tool_call', garbage)).toMatchObject({ action: 'block' });
    const spawn = await tool('delegate_task', { goal: 'refactor src/' });
    expect(blocked(spawn.reads)).toMatch(/subagent whose tool calls would not be checked/);
    const other = await send('on_session_start', { model: 'm', platform: 'cli' });
    expect(other).toMatchObject({ code: 0, stdout: '' });
    // The turn's record goes at the end of the turn.
    await send('on_session_end', { turn_id: 't1', completed: true });
    expect(readdirSync(join(home, 'turns')).filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
