import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  currentOwner,
  noteExtensionPlace,
  ownedBy,
  ownerInStack,
  runOwnedBy,
  trackExtensionOwners,
} from '../../src/extensions/owner.js';

/** A stack as V8 prints it, thrown at `frames` (top first). */
const stackAt = (...frames: string[]) =>
  ['Error: boom in /home/u/.hermes/extensions/named-in-message.ts', ...frames]
    .map((f, i) => (i === 0 ? f : `    at ${f}`))
    .join('\n');

describe('which extension owns the code that runs', () => {
  trackExtensionOwners();
  const home = '/home/u/.hermes/extensions';
  noteExtensionPlace(`${home}/guard`, 'guard');
  noteExtensionPlace(`${home}/one file.ts`, 'one-file');
  noteExtensionPlace('/repo/.hermes/extensions/project/index.ts', 'project');
  noteExtensionPlace(`${home}/named-in-message.ts`, 'named-in-message');

  it('follows a handler into the timers and promises it starts', async () => {
    const seen = await new Promise((resolve) => {
      ownedBy('guard', () => {
        setTimeout(() => Promise.resolve().then(() => resolve(currentOwner())), 0);
      })();
    });
    expect(seen).toBe('guard');
    expect(runOwnedBy('project', () => currentOwner())).toBe('project');
    expect(currentOwner()).toBeUndefined();
  });

  it('finds the extension nearest the top of a stack: by path, file URL or project bundle', () => {
    const framework = 'runChain (/usr/lib/node_modules/hermes-extensions/dist/cli.bundle.cjs:1:1)';
    expect(ownerInStack(stackAt(framework, `Timeout.x (${home}/guard/lib/db.js:3:9)`))).toBe(
      'guard',
    );
    const url = pathToFileURL(`${home}/one file.ts`).href;
    expect(ownerInStack(stackAt(`Timeout.x (${url}?hermes-graph=1:8:2)`, framework))).toBe(
      'one-file',
    );
    expect(
      ownerInStack(stackAt('x (hermes-bundle:/repo/.hermes/extensions/project/index.ts:4:1)')),
    ).toBe('project');
  });

  it('names none for a sibling whose name starts alike, a path in the message, or no stack', () => {
    expect(ownerInStack(stackAt(`x (${home}/guardian/index.js:1:1)`))).toBeUndefined();
    expect(ownerInStack(stackAt('x (node:internal/timers:581:17)'))).toBeUndefined();
    expect(ownerInStack(undefined)).toBeUndefined();
  });
});
