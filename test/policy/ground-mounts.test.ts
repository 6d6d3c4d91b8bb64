import { mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protectedGround } from '../../src/policy/protected/ground.js';
import { groundMounts } from '../../src/policy/sandbox/ground-mounts.js';
import { tree } from '../support/fixtures.js';

/**
 * The protected-ground sandbox's mounts are made again to recognise a line the agent sends back:
 * they must not depend on the empty folder another sandbox, running meanwhile, leaves as a mount
 * point above a place that does not exist (`.cursor` for `.cursor/hooks.json`).
 */
describe('the protected-ground mounts', () => {
  it('are the same while an empty folder stands where a place’s missing folder would be', () => {
    const root = tree({ '.git/HEAD': '' });
    const ground = protectedGround(root);
    const before = groundMounts(ground);
    expect(before.blocked).toContainEqual({ path: join(root, '.cursor'), kind: 'folder' });
    mkdirSync(join(root, '.cursor'));
    expect(groundMounts(ground)).toEqual(before);
    rmdirSync(join(root, '.cursor'));
  });
});
