import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/hermes.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/demo/run-demo.js', import.meta.url)));

// The demo runs the build that `npm install` makes, as a user's `npm run demo` does.
describe.runIf(built)('hermes demo', () => {
  it('tells the session: request rewritten, search and edit blocked, plan written, edit allowed', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'demo']);
    const story = [
      /loaded module-router 1\.1\.0 \(enabled/,
      /loaded workflow-guard 1\.0\.0 \(enabled/,
      /workflow-guard rewrote the request to: "\/start-feature fix the login bug/,
      /workflow-guard reminds the model, in this request only:\s+"No plan exists yet at plans\/active\/plan\.md/,
      /module-router blocked grep:\s+Blocked by module-router: grep searches across modules/,
      /read ran: # Modules/,
      /grep ran: src\/auth\/login\.ts/,
      /workflow-guard blocked edit:\s+Blocked by workflow-guard: edit would write src\/auth\/login\.ts/,
      /write ran: wrote plans\/active\/plan\.md/,
      /workflow-guard adds to the system prompt of this request:\s+"A plan exists at plans\/active\/plan\.md/,
      /edit ran: edited src\/auth\/login\.ts/,
      /In all: 6 tool calls, 2 blocked; the fix landed after the plan\./,
    ];
    let from = 0;
    for (const step of story) {
      const match = step.exec(stdout.slice(from));
      expect(match, `${step} after position ${from}`).not.toBeNull();
      from += (match?.index ?? 0) + (match?.[0].length ?? 0);
    }
  });
});
