import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, root } from './doc-blocks.js';

/**
 * The docs tell users to install the optional peers at a version (`npm i -D rolldown@1.2.19`):
 * the one package.json's peerDependencies pins, which the framework accepts and nothing else
 * (src/optional-peers.ts). A release that moves the pin moves every page with it.
 */
const peers = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  }
).peerDependencies;

const PINNED = ['rolldown', '@anthropic-ai/sandbox-runtime', '@modelcontextprotocol/sdk'];

describe('the optional peers in the docs', () => {
  it('are pinned to one version each in package.json, the same as the devDependency', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const name of PINNED) {
      expect(peers[name], name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest.devDependencies[name], name).toBe(peers[name]);
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(manifest.dependencies[name], name).toBeUndefined();
    }
  });

  it('are installed at that version wherever a page says to install one', () => {
    const wrong: string[] = [];
    let found = 0;
    for (const page of docPages()) {
      const text = readFileSync(join(root, page), 'utf8');
      for (const name of PINNED) {
        const escaped = name.replace(/[/.@-]/g, '\\$&');
        for (const match of text.matchAll(
          new RegExp(`npm i(?:nstall)? -[DgS] ${escaped}@(\\S+?)[\`\\s)]`, 'g'),
        )) {
          found++;
          if (match[1] !== peers[name]) wrong.push(`${page}: ${name}@${match[1]}`);
        }
      }
    }
    expect(found).toBeGreaterThanOrEqual(4);
    expect(wrong).toEqual([]);
  });
});
