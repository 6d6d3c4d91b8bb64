import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = `${root}bin/hermes.js`;
const built = existsSync(`${root}dist/cli/main.js`);

/** One bridge process, asked `messages` in turn; its answers, in order. */
async function askBridge(home: string, cwd: string, messages: unknown[]) {
  const child = spawn(process.execPath, [bin, 'extensions', 'serve', '--stdio', '--cwd', cwd], {
    env: { ...process.env, HERMES_HOME: home },
  });
  const answers: Array<Record<string, unknown>> = [];
  const lines = createInterface({ input: child.stdout });
  const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  lines.on('line', (line) => {
    answers.push(JSON.parse(line));
    const next = messages[answers.length];
    if (next === undefined) child.stdin.end();
    else child.stdin.write(`${JSON.stringify(next)}\n`);
  });
  child.stdin.write(`${JSON.stringify(messages[0])}\n`);
  await done;
  return answers;
}

describe.runIf(built)('the bridge with no extension at all', () => {
  // A host such as the Hermes agent's plugin skips a hook its bridge says has no handler: the
  // framework's protected-ground rule judges every tool call, so intercept_tool_call always has one.
  it('says intercept_tool_call is judged, and refuses a write of the project config', async () => {
    const home = tree({});
    const project = tree({ '.git/HEAD': '', '.hermes/config.yaml': 'extensions: {}\n' });
    const [init, , write, read] = await askBridge(home, project, [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'turn/start', params: { session_id: 's', turn_id: 't' } },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'intercept_tool_call',
        params: {
          turn_id: 't',
          tool_name: 'write_file',
          tool_args: { path: '.hermes/config.yaml', content: 'extensions: { enabled: false }' },
        },
      },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'intercept_tool_call',
        params: {
          turn_id: 't',
          tool_name: 'read_file',
          tool_args: { path: '.hermes/config.yaml' },
        },
      },
    ]);
    expect(init).toMatchObject({ result: { hooks: { intercept_tool_call: true } } });
    expect(write).toMatchObject({ result: { blocked: true, blocked_by: 'hermes' } });
    expect(read).toMatchObject({ result: { blocked: false } });
  }, 30_000);
});
