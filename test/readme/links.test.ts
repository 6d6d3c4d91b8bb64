import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, root } from './doc-blocks.js';

/** A page's text with fenced blocks and code spans blanked out: links there are not links. */
function prose(text: string): string {
  return text.replace(/^( *)(`{3,}|~{3,})[\s\S]*?^ *\2\s*$/gm, '').replace(/`[^`]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (a repeated one gets `-1`, `-2`, … as on GitHub). */
function anchors(page: string): Set<string> {
  const found = new Set<string>();
  const text = readFileSync(join(root, page), 'utf8').replace(
    /^( *)(`{3,}|~{3,})[\s\S]*?^ *\2\s*$/gm,
    '',
  );
  for (const [, heading = ''] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    let name = base;
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`;
    found.add(name);
  }
  for (const [, id = ''] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

/** Every link target of a page: inline `[text](target)` and reference `[label]: target`. */
function links(page: string): string[] {
  const text = prose(readFileSync(join(root, page), 'utf8'));
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const reference = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]);
  return [...inline, ...reference].filter((target): target is string => Boolean(target));
}

/** Why a link of `page` leads nowhere, or undefined when it leads to a file and heading. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
  if (file.startsWith('..')) return 'leads outside the repository';
  if (!existsSync(join(root, file))) return `${file} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md') || !statSync(join(root, file)).isFile()) {
    return `#${anchor} on ${file}, which is not a markdown page`;
  }
  return anchors(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe('links between the pages of the docs', () => {
  const pages = docPages();

  it('finds the pages and their links (a page list or a link reader that finds nothing fails)', () => {
    expect(pages).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/hosts.md']),
    );
    const relative = pages.flatMap((page) => links(page).filter((t) => !/^[a-z]+:/i.test(t)));
    expect(relative.length).toBeGreaterThan(40);
  });

  it('every relative link leads to a file of the repository, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(page)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
        const why = brokenLink(page, target);
        if (why) broken.push(`${page}: (${target}) ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('can fail: a link to a missing heading and one to a missing file are reported', () => {
    expect(brokenLink('README.md', 'docs/hosts.md#no-such-heading')).toBe(
      'docs/hosts.md has no heading #no-such-heading',
    );
    expect(brokenLink('docs/hosts.md', '../no-such-file.md')).toBe(
      'no-such-file.md does not exist',
    );
    expect(brokenLink('docs/hosts.md', '#what-a-handler-receives')).toBeUndefined();
  });

  it('reads headings as GitHub makes anchors of them', () => {
    expect(slug('`enable` / `disable --project` and trust')).toBe(
      'enable--disable---project-and-trust',
    );
    expect(slug('Any language, over stdio: the JSON-RPC bridge')).toBe(
      'any-language-over-stdio-the-json-rpc-bridge',
    );
  });
});
