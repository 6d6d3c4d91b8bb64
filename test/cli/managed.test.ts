import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { hermesManaged } from '../support/managed.js';
import { built, runHook } from '../support/run-bin.js';

/**
 * The managed layer (docs/teams.md, Managed policy) through the real command line and the real
 * hook process: an admin's guard in the managed folder, and a user and a project that try to
 * switch it off, shadow it, move ahead of it or cut its time. Every try is ignored, and said.
 */
const GUARD = tsExtension(
  'managed-guard',
  // A little slow on purpose: a 1 ms chain limit, were it applied, would end the chain first.
  `hermes.on('intercept_tool_call', async () => {
    await new Promise((r) => setTimeout(r, 30));
    return block('managed: no writes');
  }, { tools: 'write' });`,
);

function setup(files: {
  managed?: Record<string, string>;
  home?: Record<string, string>;
  project?: Record<string, string>;
}) {
  const managed = tree({ 'extensions/managed-guard.ts': GUARD, ...files.managed });
  const home = tree(files.home);
  const project = tree({ '.git/HEAD': '', ...files.project });
  return { managed, home, project };
}

let calls = 0;
function write(project: string) {
  return {
    session_id: 'managed',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_use_id: `toolu_${calls++}`,
    tool_input: { file_path: join(project, 'a.ts'), content: 'x' },
  };
}

/** What `hermes hook claude-code` answers for a Write in the project. */
async function decide(env: ReturnType<typeof setup>, extraEnv: Record<string, string> = {}) {
  const run = await hermesManaged(env.managed, env.home, ['hook', 'claude-code'], {
    stdin: JSON.stringify(write(env.project)),
    env: extraEnv,
  });
  if (run.stdout === '') return { decision: `allowed (exit ${run.code})`, reason: run.stderr };
  const output = JSON.parse(run.stdout).hookSpecificOutput;
  return {
    decision: String(output?.permissionDecision),
    reason: String(output?.permissionDecisionReason),
  };
}

interface Listed {
  name: string;
  status: string;
  managed?: true;
  mode?: string;
  code?: string;
}

async function list(env: ReturnType<typeof setup>, extraEnv: Record<string, string> = {}) {
  const run = await hermesManaged(
    env.managed,
    env.home,
    ['extensions', 'list', '--json', '--cwd', env.project],
    { env: extraEnv },
  );
  expect(run.stderr).not.toMatch(/Error/);
  return JSON.parse(run.stdout) as Listed[];
}

interface DoctorCheck {
  level: string;
  subject: string;
  message: string;
  code?: string;
}

async function doctor(env: ReturnType<typeof setup>, extraEnv: Record<string, string> = {}) {
  const run = await hermesManaged(
    env.managed,
    env.home,
    ['extensions', 'doctor', '--json', '--cwd', env.project],
    { env: extraEnv },
  );
  return (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks;
}

const overrides = (checks: DoctorCheck[]) =>
  checks.filter((c) => c.code === 'MANAGED_OVERRIDE').map((c) => c.message);

describe.runIf(built)('the managed layer', { timeout: 60_000 }, () => {
  it("blocks through the hook even when the user's config disables it, and says the disable is ignored", async () => {
    const env = setup({ home: { 'config.yaml': 'extensions:\n  disabled: [managed-guard]\n' } });
    expect(await decide(env)).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('managed: no writes'),
    });
    expect(await list(env)).toContainEqual(
      expect.objectContaining({ name: 'managed-guard', status: 'enabled', managed: true }),
    );
    expect(overrides(await doctor(env))).toEqual([
      expect.stringMatching(/extensions\.disabled: \[managed-guard\] in .*config\.yaml is ignored/),
    ]);
  });

  it("ignores a trusted project's mode: shadow on it", async () => {
    const env = setup({
      project: { '.hermes/config.yaml': 'extensions:\n  managed-guard:\n    mode: shadow\n' },
    });
    const trusted = await hermesManaged(env.managed, env.home, [
      'extensions',
      'trust',
      '--yes',
      '--cwd',
      env.project,
    ]);
    expect(trusted.code).toBe(0);
    expect(await decide(env)).toMatchObject({ decision: 'deny' });
    const [guard] = (await list(env)).filter((e) => e.name === 'managed-guard');
    expect(guard).not.toHaveProperty('mode');
    expect(overrides(await doctor(env))).toEqual([
      expect.stringMatching(
        /extensions\.managed-guard\.mode: shadow in .*\.hermes\/config\.yaml is ignored/,
      ),
    ]);
  });

  it('ignores an extension of its name and a user extension that asks to run before it', async () => {
    const sneak = tsExtension(
      'sneak',
      `hermes.on('intercept_tool_call', () => block('sneak went first'), { tools: 'write', priority: 200, before: ['managed-guard'] });`,
    );
    const impostor = tsExtension(
      'managed-guard',
      `hermes.on('intercept_tool_call', () => pass());`,
    );
    const env = setup({
      home: { 'extensions/sneak.ts': sneak, 'extensions/managed-guard.ts': impostor },
    });
    expect(await decide(env)).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('managed: no writes'),
    });
    const listed = await list(env);
    expect(listed.filter((e) => e.name === 'managed-guard')).toEqual([
      expect.objectContaining({ status: 'enabled', managed: true }),
      expect.objectContaining({ status: 'shadowed', code: 'MANAGED_OVERRIDE' }),
    ]);
    expect(overrides(await doctor(env))).toContainEqual(
      expect.stringMatching(
        /"sneak" asks to run before "managed-guard" on intercept_tool_call: ignored/,
      ),
    );
  });

  it("keeps the managed chain limit against a user's shorter one", async () => {
    const env = setup({
      managed: {
        'config.yaml': 'extensions:\n  chain_timeout_ms:\n    intercept_tool_call: 20000\n',
      },
      home: { 'config.yaml': 'extensions:\n  chain_timeout_ms:\n    intercept_tool_call: 1\n' },
    });
    expect(await decide(env)).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('managed: no writes'),
    });
    expect(overrides(await doctor(env))).toEqual([
      expect.stringMatching(
        /extensions\.chain_timeout_ms\.intercept_tool_call in .*config\.yaml is ignored/,
      ),
    ]);
  });

  it("managed_only: the user's own extensions do not run", async () => {
    const mine = tsExtension(
      'mine',
      `hermes.on('intercept_tool_call', () => block('mine blocks bash'), { tools: 'bash' });`,
    );
    const env = setup({
      managed: { 'config.yaml': 'extensions:\n  managed_only: true\n' },
      home: { 'extensions/mine.ts': mine, 'config.yaml': 'extensions:\n  on_load_error: warn\n' },
    });
    expect(await list(env)).toEqual([
      expect.objectContaining({ name: 'managed-guard', status: 'enabled', managed: true }),
      expect.objectContaining({ name: 'mine', status: 'disabled', code: 'MANAGED_ONLY' }),
    ]);
    expect(await decide(env)).toMatchObject({ decision: 'deny' });
    const checks = await doctor(env);
    expect(checks.filter((c) => c.code === 'MANAGED_ONLY').map((c) => c.message)).toEqual([
      expect.stringMatching(/config\.yaml is ignored: .* sets managed_only/),
    ]);
  });

  it('`disable` refuses a managed extension, and writes nothing', async () => {
    const env = setup({});
    const run = await hermesManaged(env.managed, env.home, [
      'extensions',
      'disable',
      'managed-guard',
      '--cwd',
      env.project,
    ]);
    expect(run).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/managed-guard is managed/),
    });
    expect(existsSync(join(env.home, 'config.yaml'))).toBe(false);
  });

  it('list shows what is managed, and the ignored attempts under the table', async () => {
    const env = setup({ home: { 'config.yaml': 'extensions:\n  disabled: [managed-guard]\n' } });
    const run = await hermesManaged(env.managed, env.home, [
      'extensions',
      'list',
      '--cwd',
      env.project,
    ]);
    expect(run.stdout).toMatch(/managed-guard\s+enabled \(managed\)\s+managed/);
    expect(run.stdout).toMatch(/warning: extensions\.disabled: \[managed-guard\] in .* is ignored/);
  });

  it("the agent's side cannot move the managed folder: no variable is read, and it is protected ground", async () => {
    const env = setup({});
    const empty = tree({ 'config.yaml': 'extensions: {}\n' });
    // Names an agent might try; none is read. Only the test's preload names the folder.
    const tries = {
      HERMES_MANAGED_DIR: empty,
      HERMES_MANAGED_CONFIG: join(empty, 'config.yaml'),
      HERMES_EXTENSIONS_MANAGED: empty,
      HERMES_MANAGED: empty,
    };
    expect(await decide(env, tries)).toMatchObject({ decision: 'deny' });
    // Without the preload, the same variables name no managed folder either.
    const plain = await runHook('claude-code', env.home, write(env.project), {
      ...tries,
      HERMES_DAEMON: '0',
    });
    expect(plain.stdout).toBe('');
    // Writing the managed config or its extensions is refused.
    const named = [join(env.managed, 'config.yaml'), join(env.managed, 'extensions/x.ts')];
    for (const file of named) {
      const run = await hermesManaged(env.managed, env.home, ['hook', 'claude-code'], {
        stdin: JSON.stringify({
          ...write(env.project),
          tool_name: 'Bash',
          tool_input: { command: `echo 'extensions: {}' > '${file}'` },
        }),
      });
      expect(JSON.parse(run.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/managed/),
      });
    }
  });

  it('a paused.json in the managed folder refuses every call, and the user cannot lift it', async () => {
    const flag = JSON.stringify({ by: 'IT', at: '2026-11-29T00:00:00Z', reason: 'incident 7' });
    const env = setup({ managed: { 'paused.json': flag } });
    const paused = await decide(env);
    expect(paused.decision).toBe('deny');
    expect(paused.reason).toContain('incident 7');
    expect(paused.reason).toContain('their admin removes it');
    const resume = await hermesManaged(env.managed, env.home, ['extensions', 'resume', '--all']);
    expect(`${resume.stdout}${resume.stderr}`).toContain(join(env.managed, 'paused.json'));
    expect(existsSync(join(env.managed, 'paused.json'))).toBe(true);
    expect((await decide(env)).reason).toContain('incident 7');
  });
});
