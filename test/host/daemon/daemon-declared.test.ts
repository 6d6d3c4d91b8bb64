import { describe, expect, it } from 'vitest';
import { tree, write } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import { answeredAlike, bash, reasonOf, socketFolder, startDaemon } from './daemon-support.js';

/**
 * A Cedar policy declared in the user's config is built into the runtime when it loads, so the
 * daemon's worker decides with it as a fresh hook process does, and an edit of the policy file
 * loads the runtime anew (the worker records the file as read: read-recorder.ts).
 */
const policy = (word: string) =>
  `@reason("the policy refuses ${word}")\nforbid(principal, action, resource) when { context.command like "${word}*" };\n`;

describe.runIf(built)('the hook daemon and a declared Cedar policy', () => {
  it('answers with it as a fresh hook process does, and reloads when the policy changes', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  cedar-guard:\n    kind: cedar\n    policy: agent.cedar\n',
      'agent.cedar': policy('rm'),
    });
    const project = tree({ '.git/HEAD': '' });
    const env = {
      HERMES_HOME: home,
      HOME: home,
      HERMES_DAEMON_DIR: socketFolder(),
      HERMES_DAEMON: undefined,
    };
    const { socket } = await startDaemon(env);
    expect(reasonOf(await answeredAlike(socket, bash(project, 'c', 'ls')))).toBeUndefined();
    expect(reasonOf(await answeredAlike(socket, bash(project, 'c', 'rm x')))).toContain(
      'the policy refuses rm',
    );
    write(home, { 'agent.cedar': policy('ls') });
    expect(reasonOf(await answeredAlike(socket, bash(project, 'c', 'ls')))).toContain(
      'the policy refuses ls',
    );
  });
});
