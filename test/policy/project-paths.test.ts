import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isWithin, resolveProjectPath } from 'hermes-extensions/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A real tree: the project is reached through a symlink, as a checkout under a linked home is.
let base: string;
let project: string; // the path the agent was given (through the link)
let realProject: string;
let outside: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-paths-')));
  realProject = join(base, 'real-project');
  outside = join(base, 'outside');
  mkdirSync(join(realProject, 'src/deep'), { recursive: true });
  mkdirSync(join(realProject, 'plans'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(realProject, 'src/app.ts'), 'x');
  symlinkSync(realProject, join(base, 'project'));
  project = join(base, 'project');
  symlinkSync(outside, join(realProject, 'plans/out')); // a folder link leaving the project
  symlinkSync(join(realProject, 'src'), join(realProject, 'plans/src')); // one staying inside
  symlinkSync(join(outside, 'not-yet'), join(realProject, 'plans/dangling'));
  symlinkSync('loop-b', join(realProject, 'loop-a'));
  symlinkSync('loop-a', join(realProject, 'loop-b'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const inProject = (given: string) => resolveProjectPath(project, given).inProject;

describe('resolveProjectPath', () => {
  it('resolves existing and new files through the linked project root', () => {
    expect(inProject('src/app.ts')).toBe('src/app.ts');
    expect(inProject('src/new.ts')).toBe('src/new.ts');
    expect(inProject('src/a/b/new.ts')).toBe('src/a/b/new.ts');
    expect(inProject('./src/../plans/p.md')).toBe('plans/p.md');
    expect(inProject(join(project, 'src/app.ts'))).toBe('src/app.ts');
    expect(inProject(join(realProject, 'src/app.ts'))).toBe('src/app.ts');
    expect(resolveProjectPath(project, 'src/app.ts').real).toBe(join(realProject, 'src/app.ts'));
  });

  it('follows folder links, including to where they leave the project', () => {
    expect(inProject('plans/src/app.ts')).toBe('src/app.ts');
    expect(inProject('plans/src/new/file.ts')).toBe('src/new/file.ts');
    expect(inProject('plans/out/x')).toBeUndefined();
    expect(resolveProjectPath(project, 'plans/out/x').real).toBe(join(outside, 'x'));
  });

  it('climbs from a link target on `..`, and lexically after a missing folder', () => {
    // plans/src is src, so plans/src/.. is the project root, not plans/.
    expect(inProject('plans/src/../app.ts')).toBe('app.ts');
    expect(inProject('plans/out/../x')).toBeUndefined();
    expect(inProject('missing/../src/app.ts')).toBe('src/app.ts');
    expect(inProject('missing/../plans/src/new.ts')).toBe('src/new.ts');
  });

  it('follows a dangling link to where writing would create the file', () => {
    expect(inProject('plans/dangling')).toBeUndefined();
    expect(resolveProjectPath(project, 'plans/dangling').real).toBe(join(outside, 'not-yet'));
    expect(inProject('plans/dangling/child')).toBeUndefined();
  });

  it('treats what cannot be resolved as outside the project', () => {
    expect(inProject('loop-a')).toBeUndefined();
    expect(inProject('loop-a/x')).toBeUndefined();
    expect(inProject('src/app.ts/not-a-folder')).toBeUndefined();
  });

  it('keeps a trailing slash, absolute paths and ~ as the shell means them', () => {
    expect(inProject('src/deep/')).toBe('src/deep');
    expect(inProject('src/app.ts/')).toBe('src/app.ts');
    expect(inProject('/etc/passwd')).toBeUndefined();
    expect(inProject(`${outside}/../real-project/src/app.ts`)).toBe('src/app.ts');
    const fromHome = resolveProjectPath(project, '~/file');
    expect(fromHome.real.startsWith(realpathSync(homedir()))).toBe(true);
  });

  it('accepts a relative project root', () => {
    const rel = relative(process.cwd(), project);
    expect(resolveProjectPath(rel, 'src/app.ts').inProject).toBe('src/app.ts');
  });
});

describe('isWithin', () => {
  it('matches whole folders and files only', () => {
    const path = resolveProjectPath(project, 'plans/p.md');
    expect(isWithin(path, ['plans/'])).toBe(true);
    expect(isWithin(path, ['./plans'])).toBe(true);
    expect(isWithin(path, ['plans/p.md'])).toBe(true);
    expect(isWithin(path, ['plan'])).toBe(false);
    expect(isWithin(resolveProjectPath(project, 'plansX/a.md'), ['plans/'])).toBe(false);
    expect(isWithin(resolveProjectPath(project, 'plans/out/x'), ['plans/'])).toBe(false);
  });
});
