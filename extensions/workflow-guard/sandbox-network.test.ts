import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import {
  decoy,
  runShell,
  runShellAsync,
  sandbox,
  sandboxMissingTest,
  useSandboxSettingsHome,
} from '../../test/support/sandbox.js';
import workflowGuard from './index.js';

/**
 * A sandboxed command reaches no server of this machine: not over TCP, not through a Unix socket,
 * not through the sandbox runtime's own proxy (extensions/workflow-guard/README.md, The sandbox). Each decoy
 * answers meanwhile (the command runs without blocking this process), and answers the same command
 * run outside the sandbox, so a test that it was not reached can fail.
 */

useSandboxSettingsHome();

/** The line workflow-guard lets run for `command` (no plan): sandboxed, since it runs code. */
async function sandboxed(root: string, command: string): Promise<string> {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': {} } },
    logger: memoryLogger(),
  });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
  );
  expect(outcome).toMatchObject({ blocked: false, changed: true });
  return outcome.value.command as string;
}

const project = () => tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '' });

describe('workflow-guard without a plan: the sandbox has no network', () => {
  sandboxMissingTest();

  describe.runIf(sandbox.available)('with the sandbox', () => {
    it('reaches no server of this machine over TCP', async () => {
      const server = await decoy({ host: '127.0.0.1' });
      try {
        const root = project();
        const command = `node -e "fetch('http://127.0.0.1:${server.port}/').then(r => r.text()).then(console.log, () => console.log('refused'))"`;
        const run = await runShellAsync(await sandboxed(root, command), root);
        expect(run.stdout).toContain('refused');
        expect(server.reached()).toBe(0);
        expect((await runShellAsync(command, root)).stdout).toBe('reached\n');
      } finally {
        server.close();
      }
    });

    it('reaches no Unix socket of this machine', async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'hermes-socket-')), 'agent.sock');
      const server = await decoy({ path });
      try {
        const root = project();
        const command = `node -e "require('net').connect('${path}').on('data', d => process.stdout.write(String(d))).on('error', e => console.log('refused', e.code))"`;
        const run = await runShellAsync(await sandboxed(root, command), root);
        expect(run.stdout).toMatch(/^refused/);
        expect(server.reached()).toBe(0);
        expect((await runShellAsync(command, root)).stdout).toBe('reached\n');
      } finally {
        server.close();
      }
    });

    it.runIf(runShell('command -v curl', tmpdir()).code === 0)(
      "reaches no server of this machine through the runtime's own proxy either",
      async () => {
        const server = await decoy({ host: '0.0.0.0' });
        try {
          const root = project();
          const urls = ['127.0.0.1', 'localhost', hostname()].map(
            (host) => `http://${host}:${server.port}/`,
          );
          const tries = urls.flatMap((url) => [
            `curl -s -m 2 ${url}`,
            `curl -s -m 2 --noproxy '' ${url}`,
            `curl -s -m 2 -x http://localhost:3128 ${url}`,
            `curl -s -m 2 -x socks5h://localhost:1080 ${url}`,
          ]);
          const line = await sandboxed(root, `${tries.join('; ')}; echo done`);
          const run = await runShellAsync(line, root);
          expect(run.stdout).not.toContain('reached');
          expect(run.stdout).toContain('done');
          expect(server.reached()).toBe(0);
          const outside = await runShellAsync(`curl -s -m 2 --noproxy '*' ${urls[0]}`, root);
          expect(outside.stdout).toBe('reached');
        } finally {
          server.close();
        }
      },
    );
  });
});
