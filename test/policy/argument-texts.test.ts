import { argumentTexts, looksLikePath, pathReadings } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';

const PATCH = '*** Begin Patch\n*** Add File: plans/a.md\n+x\n*** End Patch';

/** One row per tool call's arguments: each string a tool might take as a file name, and where. */
const TEXTS: Array<[label: string, args: unknown, texts: Array<[argument: string, text: string]>]> =
  [
    [
      'a path and its content',
      { path: 'plans/a.md', content: 'see src/a.ts' },
      [['path', 'plans/a.md']],
    ],
    [
      'content names in any case and spelling',
      { filePath: 'a', oldString: 'src/a', NEW_STRING: 'src/b', oldText: 'x', Code_Edit: 'y' },
      [['filePath', 'a']],
    ],
    ['a list of lines under a content name', { content: ['src/a.ts', 'src/b.ts'] }, []],
    [
      'patch text; the names of arguments too',
      { patch: PATCH, to: 'b' },
      [
        ['to', 'to'],
        ['to', 'b'],
      ],
    ],
    ['patch text under another name', { operations: PATCH }, [['operations', 'operations']]],
    [
      'several lines that are no patch',
      { notes: 'one\nsrc/a.ts' },
      [
        ['notes', 'notes'],
        ['notes', 'one\nsrc/a.ts'],
      ],
    ],
    [
      'the names of arguments the guard does not know',
      { files: { 'src/a.ts': 'x' }, 'src/b.ts': 'y' },
      [
        ['files', 'src/a.ts'],
        ['files.src/a.ts', 'x'],
        ['src/b.ts', 'src/b.ts'],
        ['src/b.ts', 'y'],
      ],
    ],
    [
      'names of entries with the words of argument names in them',
      { changes: { 'file:///r/src/a.ts': [], 'src/path.ts': 'x' } },
      [
        ['changes', 'file:///r/src/a.ts'],
        ['changes', 'src/path.ts'],
        ['changes.src/path.ts', 'x'],
      ],
    ],
    [
      'nested lists',
      { edits: [[{ where: 'src/a.ts' }]] },
      [
        ['edits', 'edits'],
        ['edits[0][0]', 'where'],
        ['edits[0][0].where', 'src/a.ts'],
      ],
    ],
    [
      'JSON text, read as text and as what it holds',
      { args: '{"path":"package.json"}' },
      [
        ['args', 'args'],
        ['args', '{"path":"package.json"}'],
        ['args.path', 'package.json'],
      ],
    ],
    [
      'numbers and flags are no text',
      { replace_all: true, view_range: [1, 2] },
      [
        ['replace_all', 'replace_all'],
        ['view_range', 'view_range'],
      ],
    ],
  ];

describe('argumentTexts', () => {
  it.each(TEXTS)('%s', (_label, args, texts) => {
    const read = argumentTexts(args);
    expect(read.texts.map(({ argument, text }) => [argument, text])).toEqual(texts);
    expect(read.unknown).toBeUndefined();
  });

  it('says when arguments, or JSON text in them, are nested too deep to read', () => {
    const deep = (depth: number): unknown =>
      depth === 0 ? 'package.json' : { a: deep(depth - 1) };
    expect(argumentTexts(deep(25)).unknown).toMatch(/nested too deep/);
    expect(argumentTexts({ args: JSON.stringify(deep(25)) }).unknown).toMatch(/nested too deep/);
    expect(argumentTexts(deep(15)).unknown).toBeUndefined();
  });

  it('says which texts are names of arguments', () => {
    expect(argumentTexts({ 'src/a.ts': 'x' }).texts).toEqual([
      { argument: 'src/a.ts', text: 'src/a.ts', isKey: true },
      { argument: 'src/a.ts', text: 'x', isKey: false },
    ]);
  });
});

const ENTRIES = new Set(['src', 'package.json', '.git']);

describe('looksLikePath', () => {
  it.each([
    'src/a.ts',
    'src\\a.ts',
    'plans%2fa.md',
    '%2e%2e',
    'file:///etc/passwd',
    'FILE:x',
    '~',
    '~user',
    '.',
    '..',
    'package.json',
    'SRC',
    ' src ',
    'src\n',
    '.git',
    'src\uFF0Fa.ts',
    '\uFF0E\uFF0E',
  ])('%j looks like a path', (text) => {
    expect(looksLikePath(text, ENTRIES)).toBe(true);
  });

  it.each(['create', 'replace', 'utf-8', 'a.md', '50%', 'srcx', ''])('%j does not', (text) => {
    expect(looksLikePath(text, ENTRIES)).toBe(false);
  });
});

describe('pathReadings', () => {
  it.each([
    ['plans/a.md', ['plans/a.md']],
    ['plans/%2e%2e/src/a.ts', ['plans/%2e%2e/src/a.ts', 'plans/../src/a.ts']],
    ['plans/..%2fsrc', ['plans/..%2fsrc', 'plans/../src']],
    ['plans/..%5csrc', ['plans/..%5csrc', 'plans/..\\src', 'plans/../src']],
    ['plans/%252e%252e/src', ['plans/%252e%252e/src', 'plans/%2e%2e/src', 'plans/../src']],
    ['plans\\..\\src', ['plans\\..\\src', 'plans/../src']],
    ['file:///r/plans/a.md', ['file:///r/plans/a.md', '/r/plans/a.md']],
    [
      'file:///r/plans/%2e%2e/src',
      ['file:///r/plans/%2e%2e/src', 'file:///r/plans/../src', '/r/src'],
    ],
    ['C:\\r\\src', ['C:\\r\\src', 'C:/r/src']],
    ['plans/\uFF0E\uFF0E/src', ['plans/\uFF0E\uFF0E/src', 'plans/../src']],
    ['plans\uFF3C..\uFF3Csrc', ['plans\uFF3C..\uFF3Csrc', 'plans\\..\\src', 'plans/../src']],
  ])('%j is read as %j', (given, readings) => {
    expect(pathReadings(given)).toEqual({ readings });
  });

  it.each([
    ['a NUL', 'src/a.ts\u0000/../../plans/x', /control character/],
    ['a line break', 'src/a.ts\n', /control character/],
    ['an escaped NUL', 'plans/a%00.md', /decodes to a control character/],
    ['an escape that does not decode', 'plans/%E0%A4%A.md', /does not decode/],
    ['a lone %', 'plans/%2e%', /does not decode/],
    ['escapes nested too deep', 'plans/%25252525252e', /nested too deep/],
    ['a file: URL on another host', 'file://server/share/a', /no local file/],
    ['a file: URL with an escaped /', 'file:///r/plans/..%2fsrc', /no local file/],
  ])('%s is unreadable', (_label, given, reason) => {
    const read = pathReadings(given);
    expect('unreadable' in read && read.unreadable).toMatch(reason);
  });
});
