import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { built, runBin, runHook } from '../support/run-bin.js';

/**
 * Where the framework itself makes a runtime and lets it go — a CLI command, the bridge when its
 * input ends, a command hook before it exits — it closes it, so extensions that buffer (an audit
 * log, a telemetry exporter) get to flush. The extension here records each close in a file.
 */
function setup() {
  const home = tree();
  const closes = join(home, 'closes.txt');
  write(home, { 'extensions/closer.ts': closer(closes) });
  const project = tree({ '.git/HEAD': '' });
  const env = { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' };
  const written = () => (existsSync(closes) ? readFileSync(closes, 'utf8') : '');
  return { home, project, env, closes: written };
}

function closer(closes: string) {
  return tsExtension(
    'closer',
    `hermes.on('intercept_tool_call', () => undefined);
    hermes.onClose(() => appendFileSync(${JSON.stringify(closes)}, 'closed\\n'));`,
    `import { appendFileSync } from 'node:fs';`,
  );
}

describe.runIf(built)('the framework closes the runtimes it makes', { timeout: 60_000 }, () => {
  it('hermes extensions test and doctor close theirs', async () => {
    const { project, env, closes } = setup();
    const input = JSON.stringify({ toolName: 'write', toolArgs: { path: 'a' } });
    const test = await runBin(
      ['extensions', 'test', 'intercept_tool_call', '--input', input, '--cwd', project],
      env,
    );
    expect(test.code, test.stderr).toBe(0);
    expect(closes()).toBe('closed\n');
    const doctor = await runBin(['extensions', 'doctor', '--cwd', project], env);
    expect(doctor.stdout).toMatch(/closer/);
    expect(closes()).toBe('closed\nclosed\n');
  });

  it('the bridge closes its runtime when its input ends', async () => {
    const { project, env, closes } = setup();
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'turn/start', params: { session_id: 's', turn_id: 't' } },
    ];
    const run = await runBin(
      ['extensions', 'serve', '--stdio', '--cwd', project],
      env,
      lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
    expect(closes()).toBe('closed\n');
  });

  it('a command hook closes its runtime before it exits', async () => {
    const { home, project, closes } = setup();
    const answer = await runHook('claude-code', home, {
      session_id: 's',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: 'a' },
      tool_use_id: 'c1',
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(closes()).toBe('closed\n');
  });
});
