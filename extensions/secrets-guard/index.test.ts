import { symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import secretsGuard from './index.js';

const ENV =
  'DATABASE_URL=postgres://app:hunter2-prod@db/app\nexport API_TOKEN="tok-9f8e7d6c5b4a"\nPORT=3000\nNODE_ENV=development\nDB_HOST=localhost\n';

/** A project with a `.env`, its example, a key, code, and a link to `.env` under another name. */
function project() {
  const root = tree({
    '.env': ENV,
    '.env.local': 'LOCAL_SECRET=local-secret-value\n',
    '.env.example': 'DATABASE_URL=\nAPI_TOKEN=\n',
    'config/.env': 'NESTED=nested-secret-1\n',
    'deploy/server.pem': '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n',
    'src/app.ts': 'export {};\n',
    'secrets.json': '{}',
    'py/.env/bin/activate': '',
  });
  symlinkSync(join(root, '.env'), join(root, 'notes.txt'));
  symlinkSync(join(homedir(), '.aws'), join(root, 'cloud'));
  return root;
}

async function guarded(root: string, config: Record<string, unknown> = {}) {
  return createRuntime({
    extensions: [secretsGuard],
    cwd: root,
    config: { extensions: { 'secrets-guard': config } },
    logger: memoryLogger(),
  });
}

async function decide(
  root: string,
  toolName: string,
  toolArgs: Record<string, unknown>,
  config: Record<string, unknown> = {},
) {
  const runtime = await guarded(root, config);
  try {
    return await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName, toolArgs }),
    );
  } finally {
    await runtime.close();
  }
}

const REFUSED: Array<[string, string, Record<string, unknown>]> = [
  ['Read .env', 'Read', { file_path: '.env' }],
  ['read_file of an absolute .env', 'read_file', { path: '<root>/.env' }],
  ['Read .env.local', 'Read', { file_path: '.env.local' }],
  ['Read .ENV (case)', 'Read', { file_path: '.ENV' }],
  ['Read src/../.env', 'Read', { file_path: 'src/../.env' }],
  ['Read a link to .env', 'Read', { file_path: 'notes.txt' }],
  ['Read a nested .env', 'view', { path: 'config/.env' }],
  ['Read a private key', 'Read', { file_path: 'deploy/server.pem' }],
  ['Read ~/.ssh/id_rsa', 'Read', { file_path: '~/.ssh/id_rsa' }],
  ['Read ~/.aws/credentials', 'Read', { file_path: '~/.aws/credentials' }],
  ['Grep in .env', 'Grep', { pattern: 'KEY', path: '.env' }],
  ['Grep with a glob of .env files', 'Grep', { pattern: 'KEY', glob: '.env*' }],
  [
    'Edit .env (its result shows the file)',
    'Edit',
    { file_path: '.env', old_string: 'a', new_string: 'b' },
  ],
  ['cat .env', 'Bash', { command: 'cat .env' }],
  ['grep x .env', 'Bash', { command: 'grep x .env' }],
  ['cat ./.env', 'Bash', { command: 'cat ./.env' }],
  ['cat src/../.env', 'Bash', { command: 'cat src/../.env' }],
  ['cat of a link to .env', 'Bash', { command: 'cat notes.txt' }],
  ['source .env', 'Bash', { command: 'source .env && echo $API_TOKEN' }],
  ['. .env', 'Bash', { command: '. ./.env' }],
  ['< .env', 'Bash', { command: 'while read l; do echo "$l"; done < .env' }],
  ['cp .env x', 'Bash', { command: 'cp .env /tmp/x && cat /tmp/x' }],
  ['base64 .env', 'Bash', { command: 'base64 .env' }],
  ['a glob that takes .env', 'Bash', { command: 'cat .e*' }],
  ['a quoted name', 'Bash', { command: 'cat ".e"nv' }],
  ['after cd', 'Bash', { command: 'cd config && cat .env' }],
  ['inside sh -c', 'Bash', { command: "sh -c 'cat .env'" }],
  ['through xargs', 'Bash', { command: 'echo x | xargs cat .env' }],
  ['in a substitution', 'Bash', { command: 'echo "$(cat .env)"' }],
  ['a variable set to .env', 'Bash', { command: 'F=.env; cat "$F"' }],
  [
    'a program given it as an option value',
    'Bash',
    { command: 'node --env-file=.env -p process.env' },
  ],
  ['code that opens it', 'Bash', { command: `python3 -c "print(open('.env').read())"` }],
  ['a here-document', 'Bash', { command: "python3 - <<'EOF'\nprint(open('.env').read())\nEOF" }],
  ['an argv', 'exec', { command: ['cat', '.env'] }],
  ['a line the parser cannot read', 'Bash', { command: 'cat .env |' }],
  ['an ssh key from the shell', 'Bash', { command: 'cat ~/.ssh/id_ed25519' }],
  ['echo of $(<.env)', 'Bash', { command: 'echo $(<.env)' }],
  ['a process substitution', 'Bash', { command: 'cat < <(cat .env)' }],
  ['names piped to xargs', 'Bash', { command: 'echo .env | xargs cat' }],
  ['Write over .env', 'Write', { file_path: '.env', content: 'A=1' }],
  ['git show of a revision of it', 'Bash', { command: 'git show HEAD:.env' }],
  ['a bracket glob', 'Bash', { command: 'cat .[e]nv' }],
  ['a brace expansion', 'Bash', { command: 'cat .{x,env}' }],
  ['an ANSI-C quoted name', 'Bash', { command: "cat $'\\x2eenv'" }],
  ['after a cd that may fail', 'Bash', { command: 'cd nowhere; cat .env' }],
  ['through /proc', 'Bash', { command: 'cat /proc/self/cwd/.env' }],
  ['eval', 'Bash', { command: 'eval "cat .env"' }],
  ['a descriptor opened on it', 'Bash', { command: 'exec 3<.env; cat <&3' }],
  ['credentials through a link to ~/.aws', 'Bash', { command: 'cat cloud/credentials' }],
  ['Read credentials through a link to ~/.aws', 'Read', { file_path: 'cloud/credentials' }],
];

const ALLOWED: Array<[string, string, Record<string, unknown>]> = [
  ['Read .env.example', 'Read', { file_path: '.env.example' }],
  ['Read code', 'Read', { file_path: 'src/app.ts' }],
  ['Glob listing .env files (names only)', 'Glob', { pattern: '**/.env*' }],
  ['Grep over src', 'Grep', { pattern: 'KEY', path: 'src' }],
  ['cat .env.example', 'Bash', { command: 'cat .env.example' }],
  ['echo .env >> .gitignore', 'Bash', { command: 'echo .env >> .gitignore' }],
  ['a glob that takes no dotfile', 'Bash', { command: 'cat *.json' }],
  ['a brace expansion of other files', 'Bash', { command: 'cat {src/app,x}.ts,y' }],
  ['ls -la', 'Bash', { command: 'ls -la' }],
  ['a virtualenv folder named .env', 'Bash', { command: 'ls py/.env && . py/.env/bin/activate' }],
  ['npm test', 'Bash', { command: 'npm test' }],
  ['Read ~/.ssh/id_rsa.pub', 'Read', { file_path: '~/.ssh/id_rsa.pub' }],
];

describe('secrets-guard: reads', () => {
  it.each(REFUSED)('refuses %s', async (_label, tool, args) => {
    const root = project();
    const filled = JSON.parse(JSON.stringify(args).replaceAll('<root>', root));
    const outcome = await decide(root, tool, filled);
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'secrets-guard',
      message: expect.stringMatching(/secret file .*Ask the user/s),
    });
  });

  it.each(ALLOWED)('lets through %s', async (_label, tool, args) => {
    const outcome = await decide(project(), tool, args);
    expect(outcome.blocked).toBe(false);
  });
});

describe('secrets-guard: config', () => {
  it('refuses the files config adds, and lets through the ones it allows', async () => {
    const root = project();
    const config = { files: ['secrets.json'], allow: ['.env.local'] };
    expect((await decide(root, 'Read', { file_path: 'secrets.json' }, config)).blocked).toBe(true);
    expect((await decide(root, 'Bash', { command: 'cat secrets.json' }, config)).blocked).toBe(
      true,
    );
    expect((await decide(root, 'Read', { file_path: '.env.local' }, config)).blocked).toBe(false);
    // The defaults stay.
    expect((await decide(root, 'Read', { file_path: '.env' }, config)).blocked).toBe(true);
  });

  it('a bad config is a clear error, and every call is refused until it is fixed', async () => {
    const root = project();
    const runtime = await guarded(root, { files: 'secrets.json', bogus: 1 });
    try {
      const ext = runtime.extensions.find((e) => e.name === 'secrets-guard');
      expect(ext).toMatchObject({ status: 'error', code: 'CONFIG_SCHEMA' });
      expect(ext?.reason).toMatch(/secrets-guard\.files: .*expected array/);
      expect(ext?.reason).toMatch(/Unrecognized key: "bogus"/);
      const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
        t.interceptToolCall({ toolName: 'Read', toolArgs: { file_path: 'src/app.ts' } }),
      );
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'secrets-guard' });
    } finally {
      await runtime.close();
    }
  });
});

const SHAPES: Array<[string, string]> = [
  ['an AWS access key', 'AKIAIOSFODNN7EXAMPLE'],
  ['a GitHub token', `ghp_${'a1B2'.repeat(9)}`],
  ['a fine-grained GitHub token', `github_pat_${'x1'.repeat(20)}`],
  ['an OpenAI key', 'sk-proj-abcdefghijklmnop1234567890'],
  ['an Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
  ['a Slack token', 'xoxb-1234567890-abcdefghij'],
  [
    'a JWT',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  ],
  [
    'a private key block',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
  ],
  ['a bearer token', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'],
];

async function transformed(root: string, result: unknown, config: Record<string, unknown> = {}) {
  const runtime = await guarded(root, config);
  try {
    return await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.transformToolResult({ toolName: 'Bash', toolArgs: { command: 'env' }, result }),
    );
  } finally {
    await runtime.close();
  }
}

describe('secrets-guard: results', () => {
  it.each(SHAPES)('redacts %s', async (_label, secret) => {
    const outcome = await transformed(project(), { stdout: `before ${secret} after\n` });
    const text = JSON.stringify(outcome.value);
    expect(text).not.toContain(secret.replace('Authorization: Bearer ', ''));
    expect(text).toMatch(/before .*\[redacted [^\]]+\].* after/);
  });

  it("redacts the project's own .env values of 8 characters or more, not plain words or numbers", async () => {
    const root = project();
    const outcome = await transformed(
      root,
      'url postgres://app:hunter2-prod@db/app token tok-9f8e7d6c5b4a local local-secret-value port 3000 development localhost',
    );
    expect(outcome.value).toBe(
      'url [redacted .env value DATABASE_URL] token [redacted .env value API_TOKEN] local [redacted .env value LOCAL_SECRET] port 3000 development localhost',
    );
  });

  it('leaves a result without secrets as it is', async () => {
    const result = { stdout: 'all tests passed\n' };
    const outcome = await transformed(project(), result);
    expect(outcome.value).toBe(result);
  });

  it('redacts nothing with redact: false', async () => {
    const outcome = await transformed(project(), 'AKIAIOSFODNN7EXAMPLE', { redact: false });
    expect(outcome.value).toBe('AKIAIOSFODNN7EXAMPLE');
  });
});
