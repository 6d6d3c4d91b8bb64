import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { python } from './python.js';
import {
  homeWith,
  llmCall,
  observer,
  type Step,
  standIn,
  type ToolStep,
  turn,
} from './stand-in.js';

/**
 * Under the plugin, extensions see Hermes' tools by the names they see under its shell hooks and
 * every other host (`bash`, `write`, `read`…): a guard written for `bash` holds under both forms.
 */

const tool = (
  name: string,
  args: Record<string, unknown>,
  id: string,
  more: Partial<ToolStep> = {},
): Step => ({
  tool: {
    name,
    args,
    tool_call_id: id,
    session_id: turn.session_id,
    turn_id: turn.turn_id,
    ...more,
  },
});

const forms = [
  { form: 'with middleware (Hermes v0.17.0 and later)', middleware: true },
  { form: 'with hooks alone (older Hermes)', middleware: false },
];

const refuser = tsExtension(
  'refuser',
  `hermes.on('intercept_tool_call', () => block('no shell'), { tools: ['bash'] });
   hermes.on('intercept_tool_call', () => block('no writes'), { tools: ['write'] });`,
);

describe.runIf(built && python)('Hermes’ tools by the framework’s names, under the plugin', () => {
  for (const { form, middleware } of forms) {
    it(`${form}: a guard for \`bash\` refuses a terminal call, one for \`write\` a write_file; a read runs`, async () => {
      const project = tree();
      const { records, code, stderr } = await standIn(
        [
          llmCall('go'),
          tool('terminal', { command: 'echo ran' }, 'c1', { terminal_cwd: project }),
          tool('write_file', { path: 'notes.md', content: 'x' }, 'c2', { result: '{"ok": 1}' }),
          tool('read_file', { path: 'notes.md' }, 'c3', { result: 'x' }),
        ],
        { home: homeWith({ refuser }, false), project, middleware },
      );
      expect(code, stderr).toBe(0);
      const ran = (name: string) => records.find((r) => r.tool === name);
      expect(ran('terminal')?.ran_with).toBeNull();
      expect(ran('terminal')?.directive).toMatchObject({
        action: 'block',
        message: 'no shell',
      });
      expect(ran('write_file')?.ran_with).toBeNull();
      expect(ran('write_file')?.directive).toMatchObject({ message: 'no writes' });
      expect(ran('read_file')?.ran_with).toEqual({ path: 'notes.md' });
    });

    it(`${form}: a \`bash\` rewrite of the command runs as the terminal call's command, its workdir kept`, async () => {
      const project = tree({ 'sub/.keep': '' });
      const seen = join(tree(), 'seen.jsonl');
      const rewriter = tsExtension(
        'rewriter',
        `hermes.on('intercept_tool_call', (e) => { appendFileSync(${JSON.stringify(seen)}, JSON.stringify(e.toolArgs) + '\\n'); return rewrite({ ...e.toolArgs, command: 'echo rewritten' }); }, { tools: ['bash'] });`,
        "import { rewrite } from 'hermes-extensions';\nimport { appendFileSync } from 'node:fs';",
      );
      const { records, code, stderr } = await standIn(
        [
          llmCall('go'),
          tool('terminal', { command: 'echo original', timeout: 5 }, 'c1', {
            terminal_cwd: tree(),
          }),
          tool('terminal', { command: 'echo original', workdir: 'sub' }, 'c2', {
            terminal_cwd: tree(),
          }),
        ],
        { home: homeWith({ rewriter }, false), project, middleware },
      );
      expect(code, stderr).toBe(0);
      // The chain sees the call as a `bash` call in the folder it runs in.
      expect(jsonLines(seen)).toEqual([
        { command: 'echo original', timeout: 5, workdir: project },
        { command: 'echo original', workdir: join(project, 'sub') },
      ]);
      const [bare, inSub] = records.filter((r) => r.tool === 'terminal');
      expect(JSON.parse(String(bare?.model_gets)).output).toBe('rewritten\n');
      expect(bare?.ran_with?.command).toContain('echo rewritten');
      expect(bare?.ran_with).not.toHaveProperty('workdir');
      expect(bare?.ran_with?.timeout).toBe(5);
      expect(inSub?.ran_with?.workdir).toBe('sub');
      expect(JSON.parse(String(inSub?.model_gets)).output).toBe('rewritten\n');
    });

    it(`${form}: observers are told a terminal call as \`bash\`, before it runs and after`, async () => {
      const project = tree();
      const events = join(tree(), 'events.jsonl');
      const { code, stderr } = await standIn(
        [llmCall('go'), tool('terminal', { command: 'echo ran' }, 'c1', { terminal_cwd: project })],
        { home: homeWith({ observer: observer(events, '*') }, false), project, middleware },
      );
      expect(code, stderr).toBe(0);
      const told = jsonLines(events).filter((e) => String(e.event).endsWith('_tool_call'));
      expect(told.map((e) => e.event)).toEqual(['pre_tool_call', 'post_tool_call']);
      // Told as Hermes ran it: in the folder it was judged in (terminal.py pins it there).
      for (const event of told) {
        expect(event).toMatchObject({
          tool_name: 'bash',
          args: { command: expect.stringContaining('echo ran'), workdir: project },
        });
      }
    });
  }
});
