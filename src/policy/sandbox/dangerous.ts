import type { Stats } from 'node:fs';
import { join } from 'node:path';

/**
 * Files and folders that configure what programs do when they run later, outside the sandbox: a
 * shell's start-up files, git's settings and hooks, editors' and agents' project settings (the
 * sandbox runtime's list, and Claude Code's project settings files). workflow-guard's own
 * bubblewrap line holds them read-only in a writable folder (bwrap-line.ts): where they exist,
 * anywhere in it; where they do not, at its top and inside each `.git` and `.claude` folder in it.
 */
const FILES = [
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.gitconfig',
  '.gitmodules',
  '.ripgreprc',
  '.mcp.json',
];
const FOLDERS = ['.vscode', '.idea'];

/** Inside these folders, what configures a later program, by name and kind. */
const INSIDE: Record<string, readonly Dangerous[]> = {
  '.git': [
    { name: 'hooks', kind: 'folder' },
    { name: 'config', kind: 'file' },
  ],
  '.claude': [
    { name: 'commands', kind: 'folder' },
    { name: 'agents', kind: 'folder' },
    { name: 'settings.json', kind: 'file' },
    { name: 'settings.local.json', kind: 'file' },
  ],
};

interface Dangerous {
  name: string;
  /** What it is when it is made: what the line binds over it while it does not exist. */
  kind: 'file' | 'folder';
}

/** A path that must not be made or changed, and what it would be. */
export interface DangerousPath {
  path: string;
  kind: 'file' | 'folder';
}

/**
 * What to hold at the top of a writable folder whether or not it exists: every dangerous name,
 * and `.git` and `.claude` themselves (a repository or agent settings made there would be obeyed
 * by a program run there later; both folders stand empty and read-only while they do not exist).
 */
export function dangerousTop(dir: string): DangerousPath[] {
  return [
    ...FILES.map((name) => ({ path: join(dir, name), kind: 'file' as const })),
    ...[...FOLDERS, ...Object.keys(INSIDE)].map((name) => ({
      path: join(dir, name),
      kind: 'folder' as const,
    })),
  ];
}

/**
 * What to hold for one entry met in a writable folder (by name, any case): the entry itself
 * where it is a dangerous file or folder (or a `.git` file, which names the repository git uses),
 * or, for a `.git` or `.claude` folder, the names inside it, whether they exist or not.
 */
export function dangerousAt(path: string, name: string, stats: Stats): DangerousPath[] {
  const lower = name.toLowerCase();
  const kind = stats.isDirectory() ? 'folder' : 'file';
  if (FILES.includes(lower) || FOLDERS.includes(lower)) return [{ path, kind }];
  const inside = INSIDE[lower];
  if (inside === undefined) return [];
  if (!stats.isDirectory()) return lower === '.git' ? [{ path, kind }] : [];
  return inside.map((entry) => ({ path: join(path, entry.name), kind: entry.kind }));
}

/**
 * Whether a project path (relative, `/`-separated) lies at or in what configures a program run
 * later (any part of it, any case, a `.git` or `.claude` folder whole): a guard that lets a write
 * to an allowed folder through outside the sandbox holds these as the sandbox does
 * (workflow-guard's check-tool.ts).
 */
export function configuresLaterProgram(path: string): boolean {
  return path
    .toLowerCase()
    .split('/')
    .some((part) => FILES.includes(part) || FOLDERS.includes(part) || part in INSIDE);
}
