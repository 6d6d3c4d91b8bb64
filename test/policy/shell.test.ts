import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  analyzeShell,
  parseShell,
  type ShellAnalysis,
  sedScriptProblem,
  shellInvocationOf,
} from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

function project() {
  const root = tree({ 'src/app.ts': 'x\n', 'plans/.keep': '', 'plans/deep/deeper/.keep': '' });
  symlinkSync('../src', join(root, 'plans/src-link'));
  symlinkSync('deep/deeper', join(root, 'plans/link'));
  return root;
}

const judge = (root: string, line: string | string[], readOnly: string[] = []) =>
  analyzeShell(line, { root, readOnly });

/** A table's expectation: refused with a reason matching this, or analyzed with these writes. */
type Expected = RegExp | string[];
/** What `shellInvocationOf` finds in a call it can judge. */
type Invocation = { runs: Array<string | string[]>; cwd?: string };
/** A folder relative to the project root: one string when name and place agree. */
type Cwd = string | [lexical: string, physical: string] | undefined;

function expectAnalysis(analysis: ShellAnalysis, expected: Expected): void {
  if (expected instanceof RegExp) {
    expect(analysis.kind).toBe('opaque');
    if (analysis.kind === 'opaque') expect(analysis.reason).toMatch(expected);
  } else {
    expect(analysis.kind).toBe('analyzed');
    if (analysis.kind === 'analyzed') expect(analysis.writes.map((w) => w.path)).toEqual(expected);
  }
}

describe('analyzeShell: what is refused', () => {
  /** Each line tries to run something that is not known to only read. */
  const REFUSED: Array<[string, string, RegExp]> = [
    ['a newline ends the first command, not the analysis', 'ls\nrm -rf src', /`rm`/],
    ['a comment hides nothing after its line', 'ls # harmless\ntouch src/x', /`touch`/],
    ['an assignment before the program', 'PATH=plans ls', /assignment `PATH=plans`/],
    ['BASH_ENV', 'BASH_ENV=plans/x bash -c ls', /assignment/],
    ['LD_PRELOAD', 'LD_PRELOAD=plans/x.so ls', /assignment/],
    ['GIT_DIR', 'GIT_DIR=plans/.git git status', /assignment/],
    ['LESSOPEN', "LESSOPEN='|rm src/app.ts %s' cat src/app.ts", /assignment/],
    ['export', 'export GIT_CONFIG_PARAMETERS=x; git log', /assignment/],
    ['a program run by its path', 'plans/ls', /runs a file by its path/],
    ['a program run by ./path', './plans/cat x', /runs a file by its path/],
    ['grouped -i', 'sed -Ei s/a/b/ src/app.ts', /`-i` \(in `-Ei`\)/],
    ['abbreviated --in-place', 'sed --in s/a/b/ src/app.ts', /`--in`/],
    ['--in-place=suffix', 'sed --in-place=.bak s/a/b/ src/app.ts', /`--in-place`/],
    ['sort -o grouped', 'sort -uo src/app.ts src/app.ts', /`-o` \(in `-uo`\)/],
    ['sort --out abbreviated', 'sort --out=src/app.ts x', /`--out`/],
    ['sort --compress-program', 'sort --compress-program=plans/x f', /compress-program/],
    ['sed w command', "sed -n 'w src/app.ts' f", /writes a file/],
    ['sed s///w', "sed 's/a/b/w src/app.ts' f", /writes a file/],
    ['sed e command', "sed '1e touch src/x' f", /runs a command/],
    ['sed s///e', "sed 's/.*/touch src\\/y/e' f", /runs a command/],
    ['sed -f script', 'sed -f plans/s.sed f', /`-f`/],
    ['sed delimiter hidden in brackets', "sed 's/[/]/x/w src/app.ts' f", /./],
    ['sed W', "sed 'W src/app.ts' f", /writes a file/],
    ['awk system()', 'awk \'BEGIN{system("rm src/app.ts")}\'', /awk program .* runs a command/],
    ['awk script file', 'awk -f plans/x.awk f', /`-f` is not an option of awk/],
    ['tree -o', 'tree -o src/app.ts', /`-o`/],
    ['fd -x', 'fd . -x rm', /`-x`/],
    ['fd --exec-batch', 'fd . --exec-batch rm', /exec-batch/],
    ['rg --pre', 'rg --pre plans/x foo', /`--pre`/],
    ['rg --hostname-bin', 'rg --hostname-bin=plans/x foo', /hostname-bin/],
    ['git diff --output', 'git diff --output=src/app.ts', /`--output`/],
    ['git --config-env', 'git --config-env=core.pager=X log', /config-env/],
    ['git -c', 'git -c core.fsmonitor=plans/x status', /`-c`/],
    ['git -C', 'git -C plans status', /`-C`/],
    ['git checkout', 'git checkout -- src', /`git checkout`/],
    ['git stash', 'git stash', /git stash/],
    ['git branch NAME', 'git branch evil', /creates it/],
    ['git config set', 'git config core.pager x', /may set a value/],
    ['git grep -O', 'git grep -O foo', /`-O`/],
    ['env -S', "env -S 'rm src/app.ts'", /env -S/],
    ['env -u', 'env -u HOME ls', /env -u/],
    ['env NAME=value', 'env PATH=plans ls', /sets an environment variable/],
    ['env running a writer', 'env rm src/app.ts', /`rm`/],
    ['find -delete', 'find . -name x -delete', /`-delete`/],
    ['find -exec', 'find src -exec rm {} +', /`-exec`/],
    ['find -fprint', 'find . -fprint src/app.ts', /`-fprint`/],
    ['command substitution', 'echo $(rm src/app.ts)', /`rm`/],
    ['backticks', 'echo `rm src/app.ts`', /`rm`/],
    ['process substitution', 'cat <(rm src/app.ts)', /`rm`/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    ['substitution in a default value', 'echo ${x:-$(rm src/app.ts)}', /`rm`/],
    // Its output would be evaluated as arithmetic, where a subscript runs code: refused as such.
    ['substitution in arithmetic', 'echo $((1+$(rm src/app.ts)))', /arithmetic/],
    ['substitution in an unquoted here-document', 'cat <<EOF\n$(rm src/app.ts)\nEOF', /`rm`/],
    ['a function replacing a program', 'ls() { rm -rf src; }; ls', /function definition/],
    ['eval', 'eval rm src/app.ts', /`eval`/],
    ['source', 'source plans/x.sh', /`source`/],
    ['dot', '. plans/x.sh', /`\.`/],
    ['exec', 'exec rm src/app.ts', /`exec`/],
    ['xargs into a writer', 'echo src/app.ts | xargs rm', /`rm`/],
    ['xargs -a', 'xargs -a plans/x cat', /`-a`/],
    ['xargs into a program judged by options', 'echo x | xargs sort', /only known when it runs/],
    [
      "xargs -I into sh -c's code",
      "echo 'x; rm src/app.ts' | xargs -I% sh -c 'echo %'",
      /code only known/,
    ],
    ['xargs into env into sh -c', "echo 'rm src/app.ts' | xargs env sh -c", /code only known/],
    ['an interpreter', "python3 -c \"open('src/app.ts','w')\"", /`python3`/],
    ['node -e', "node -e \"require('fs').rmSync('src')\"", /`node`/],
    ['a script file', 'bash plans/x.sh', /without -c/],
    ['sh -c writing', 'sh -c "rm src/app.ts"', /`rm`/],
    ['bash -c nested twice', 'bash -c "bash -c \'rm src/app.ts\'"', /`rm`/],
    ['zsh', "zsh -c 'ls'", /`zsh`/],
    ['time prefix', 'time rm src/app.ts', /`rm`/],
    ['negation', '! rm src/app.ts', /`rm`/],
    ['nohup', 'nohup ls', /`nohup`/],
    ['command', 'command rm src/app.ts', /`rm`/],
    ['timeout', 'timeout 5 rm src/app.ts', /`rm`/],
    ['nice', 'nice -n 5 rm src/app.ts', /`rm`/],
    ['date -s', 'date -s 2020-01-01', /`-s`/],
    ['date MMDDhhmm', 'date 01010000', /sets the clock/],
    ['hostname NAME', 'hostname evil', /changes something/],
    ['uniq OUTPUT', 'uniq plans/a src/app.ts', /more than 1 operand/],
    ['xxd OUTPUT', 'xxd plans/a src/app.ts', /more than 1 operand/],
    ['file -C', 'file -C -m plans/magic', /`-C`/],
    ['a variable program', '$PROG src/app.ts', /program `\$PROG`/],
    ['a variable that could be an option', 'sort $OPTS f', /could be an option/],
    ['a glob that could be an option', 'sort * f', /could be an option/],
    [
      'a for loop setting PATH',
      'for PATH in plans; do ls; done',
      /`for` loop: it sets the variable PATH/,
    ],
    ['a for loop running a writer', 'for f in src/*; do rm $f; done', /`rm`/],
    ['a case statement', 'case x in x) rm src/app.ts;; esac', /case/],
    ['a coprocess', 'coproc ls', /coprocess/],
    ['arithmetic command', '(( x = 1 ))', /arithmetic/],
    ['pushd', 'pushd src', /pushd/],
    ['cd -', 'cd - && ls', /only `cd DIR`/],
    ['cd to a variable', 'cd $HOME && ls', /only `cd DIR`/],
    ['an unterminated quote', "echo 'x", /cannot parse/],
    ['a dangling pipe', 'ls |', /cannot parse/],
    ['a named descriptor', 'exec {fd}>plans/x', /sets a variable/],
    ['an extended glob (zsh runs code in glob qualifiers)', 'ls *(e:rm src/app.ts:)', /./],
    ['a redirection target from a variable', 'echo x > $OUT', /redirection target/],
    ['a glob as redirection target', 'echo x > src/*.ts', /redirection target/],
    ['a brace expansion as redirection target', 'echo x > {src,plans}/a', /redirection target/],
    ['a process substitution as redirection target', 'git log > >(cat)', /redirection target/],
    // plans/link/.. is plans/ by name but plans/deep/ in fact.
    [
      'cd where name and place differ',
      'cd plans/link/.. && echo x > a.md',
      /target differs from its name/,
    ],
  ];

  it.each(REFUSED)('%s', (_label, line, reason) => {
    const analysis = judge(project(), line);
    expect(analysis.kind, line).toBe('opaque');
    if (analysis.kind === 'opaque') expect(analysis.reason).toMatch(reason);
  });

  /** An argument vector runs without a shell: only what each program does counts. */
  const ARGV: Array<[string, string[], Expected]> = [
    ['a writer', ['rm', '-rf', 'src'], /`rm`/],
    ['a shell, whose code is judged too', ['sh', '-c', 'rm -rf src'], /`rm`/],
    ['`>` is a word, not a redirection', ['echo', 'x', '>', 'src/app.ts'], []],
    ['a reader', ['git', 'status'], []],
  ];

  it.each(ARGV)('argv: %s', (_label, argv, expected) => {
    expectAnalysis(judge(project(), argv), expected);
  });

  /** `shell_read_only`: programs the user trusts, by name or by name and first arguments. */
  const TRUSTED: Array<[string, string[], Expected]> = [
    ['npm test', ['npm test'], []],
    ['npm install evil', ['npm test'], /`npm install`/],
    ['make -j2 lint', ['make'], []],
    // Still no assignment in front of a trusted program.
    ['NODE_OPTIONS=--require=plans/x npm test', ['npm test'], /assignment/],
  ];

  it.each(TRUSTED)('trusting %j: %s', (line, readOnly, expected) => {
    expectAnalysis(judge(project(), line, readOnly), expected);
  });

  /** git where the repository it would find is not the project's (plans/ has its own .git). */
  const OTHER_REPOSITORY: Array<[string, Expected]> = [
    ['cd plans && git status', /git would read plans\/\.git, not the project's/],
    ['git status', []],
  ];

  it.each(OTHER_REPOSITORY)('with plans/.git: %s', (line, expected) => {
    const root = project();
    mkdirSync(join(root, 'plans/.git'));
    expectAnalysis(judge(root, line), expected);
  });
});

describe('analyzeShell: what passes, and what it writes', () => {
  const PASSES = [
    'ls -la',
    'ls -R src',
    'cat src/app.ts',
    'cat src/app.ts | grep -n app | head -3',
    'git status',
    'git status --porcelain',
    'git log --oneline -5',
    'git diff HEAD~1 -- src',
    'git show --stat HEAD',
    'git diff --cached --name-only',
    'git grep -n app -- src',
    'git branch --list',
    'grep -rn "todo" src 2>/dev/null',
    'rg -n app src',
    'find src -name "*.ts" -type f',
    "find src -name '*.ts' | xargs grep -n app",
    "sed -n '1,20p' src/app.ts",
    "sed -e 's/a/b/g' -e '/x/d' src/app.ts",
    'wc -l src/*.ts',
    'head -n 5 src/app.ts && tail -5 src/app.ts',
    'echo "$HOME" $(pwd)',
    'diff <(ls src) <(ls plans)',
    'bash -lc "git status && ls"',
    'timeout 10 grep -r app src',
    '[[ -f src/app.ts ]] && cat src/app.ts',
    'if [ -d src ]; then ls src; else echo none; fi',
    "cat <<'EOF'\n$(not run)\nEOF",
    'sort -u src/app.ts | uniq -c',
    'jq . package.json',
    'tree -L 2 src',
    'stat src/app.ts; du -sh src',
  ];

  it.each(PASSES)('%s', (line) => {
    const analysis = judge(project(), line);
    expect(analysis, line).toMatchObject({ kind: 'analyzed', writes: [] });
  });

  /**
   * What a passing line writes: each file as named, what writes it, and the folder it starts
   * from, relative to the project root (`[name, place]` when they differ; `undefined` when an
   * earlier `cd` made it unknown).
   */
  const WRITES: Array<[string, string, Array<[string, string, Cwd]>]> = [
    [
      'redirections, tee and mkdir, from the folder cd went to',
      'mkdir -p plans/active && cd plans && echo x > a.md 2>&1 | tee -a b.md',
      [
        ['plans/active', 'mkdir', ''],
        ['a.md', '>', 'plans'],
        ['b.md', 'tee', 'plans'],
      ],
    ],
    [
      'an all-digit target is a file; only `>&N` is a descriptor',
      'echo x > 1 2>&1; echo y 2> 3',
      [
        ['1', '>', ''],
        ['3', '>', ''],
      ],
    ],
    [
      'through a link the folder is known by its name and its place',
      'cd plans/src-link && echo x > app.ts',
      [['app.ts', '>', ['plans/src-link', 'src']]],
    ],
    [
      'after `cd x || …` the folder is not known',
      'cd plans || true; echo x > a.md',
      [['a.md', '>', undefined]],
    ],
    [
      'clobbering, both-stream, read-write and `>&` redirections',
      'echo x >| a; echo x &> b; echo x &>> c; cat 1<> d; echo x >& e',
      [
        ['a', '>|', ''],
        ['b', '&>', ''],
        ['c', '&>>', ''],
        ['d', '<>', ''],
        ['e', '>&', ''],
      ],
    ],
    [
      'a quoted name is the name it quotes',
      `ls > "src/a b"; ls > 'src'/c`,
      [
        ['src/a b', '>', ''],
        ['src/c', '>', ''],
      ],
    ],
    [
      'tee and mkdir after options and `--`',
      'echo x | tee -a -- src/a; mkdir -m 777 -p src/d',
      [
        ['src/a', 'tee', ''],
        ['src/d', 'mkdir', ''],
      ],
    ],
    [
      'a traversal is kept as written, for the resolver',
      'cat <<< x > plans/../src/app.ts',
      [['plans/../src/app.ts', '>', '']],
    ],
    ['streams and descriptors are no file', 'ls >> /dev/null 2>&1 >&2 2>&-; ls > /dev/stdout', []],
    ["a subshell's cd stays in the subshell", '(cd plans); echo x > a.md', [['a.md', '>', '']]],
  ];

  it.each(WRITES)('writes: %s', (_label, line, writes) => {
    const root = project();
    const analysis = judge(root, line);
    expect(analysis.kind, line).toBe('analyzed');
    if (analysis.kind !== 'analyzed') return;
    const cwd = (place: Cwd) => {
      if (place === undefined) return undefined;
      const [lexical, physical] = typeof place === 'string' ? [place, place] : place;
      return { lexical: join(root, lexical), physical: join(root, physical) };
    };
    expect(analysis.writes.map((w) => [w.path, w.by, w.cwd])).toEqual(
      writes.map(([path, by, place]) => [path, by, cwd(place)]),
    );
  });
});

describe('shellInvocationOf', () => {
  /**
   * A shell tool call's arguments: every way it may run and the folder it starts in, or why it
   * cannot be judged (an argument that changes what runs, or one the guard does not know).
   */
  const INVOCATIONS: Array<[string, Record<string, unknown>, Invocation | RegExp]> = [
    ['a command line', { command: 'ls -la' }, { runs: ['ls -la'] }],
    ['an argument vector', { cmd: ['rm', '-rf', 'src'] }, { runs: [['rm', '-rf', 'src']] }],
    ['under `input`', { input: 'cat x' }, { runs: ['cat x'] }],
    [
      'two command names: both run',
      { command: 'ls', script: 'rm -rf src' },
      { runs: ['ls', 'rm -rf src'] },
    ],
    [
      'a program and args: alone, directly, joined quoted and joined bare',
      { command: 'echo', args: ['x', '>', 'src/app.ts'] },
      {
        runs: [
          'echo',
          ['echo', 'x', '>', 'src/app.ts'],
          'echo x \\> src/app.ts',
          'echo x > src/app.ts',
        ],
      },
    ],
    [
      'a folder and harmless arguments',
      { command: 'ls', workdir: 'plans', description: 'list', timeout: 5, tty: false },
      { runs: ['ls'], cwd: 'plans' },
    ],
    [
      'the same folder under two names',
      { command: 'ls', cwd: 'plans', workdir: 'plans' },
      { runs: ['ls'], cwd: 'plans' },
    ],
    ['an empty folder', { command: 'ls', workdir: '' }, { runs: ['ls'] }],
    ['an empty environment', { command: 'ls', env: {} }, { runs: ['ls'] }],
    ['bash by its path', { command: 'ls', shell: '/bin/bash' }, { runs: ['ls'] }],
    ['two folders', { command: 'ls', cwd: 'plans', workdir: 'src' }, /two working folders/],
    ['a folder that is no name', { command: 'ls', cwd: ['src'] }, /not a folder name/],
    ['an environment', { command: 'ls', env: { PATH: 'plans' } }, /environment variables/],
    ['another shell', { command: 'ls', shell: 'zsh' }, /not bash or sh/],
    ['an unknown argument', { command: 'ls', hook: 'x' }, /`hook` is not one the guard knows/],
    ['a command that is no text', { command: 5 }, /neither a command line nor a list/],
    ['an argv with a non-word', { command: ['rm', 5] }, /neither a command line nor a list/],
    ['args that are not a list', { command: 'rm', args: '-rf src' }, /not a list of words/],
    ['args without a command', { args: ['-rf', 'src'] }, /arguments but no command/],
    ['nothing to run', { description: 'x' }, /no command/],
  ];

  it.each(INVOCATIONS)('%s', (_label, args, expected) => {
    const invocation = shellInvocationOf(args);
    if (expected instanceof RegExp) {
      expect(invocation.kind).toBe('unknown');
      if (invocation.kind === 'unknown') expect(invocation.reason).toMatch(expected);
    } else {
      expect(invocation).toEqual({ kind: 'known', runs: expected.runs, cwd: expected.cwd });
    }
  });
});

describe('parseShell', () => {
  it('finds commands at every level, in the order they run, with the folder each runs in', () => {
    const root = project();
    const script = parseShell('cd plans && { grep -r x . ; } | (cat $(ls -R src))', root);
    const plans = join(root, 'plans');
    expect(script.commands.map((c) => [c.name, c.cwd?.lexical])).toEqual([
      ['cd', root],
      ['grep', plans],
      ['ls', plans], // a substitution runs before the command it is part of
      ['cat', plans],
    ]);
    expect(script).toMatchObject({ problems: [], parsed: true });
  });
});

describe('sedScriptProblem', () => {
  it.each([
    ['1,5p', undefined],
    ['s/a/b/g;/^#/d', undefined],
    ['/start/,/end/{s/x/y/2;p}', undefined],
    ['$!N;P;D', undefined],
    ['a\\\nappended text w not a command', undefined],
    ['y/abc/xyz/', undefined],
    ['s|a/b|c|w out', 'writes a file (the `w` flag of `s`)'],
    ['1!G;h;$!d;e', 'runs a command (the `e` command)'],
    ['s/x/y/ ; W out', 'writes a file (the `W` command)'],
    ['k', 'has the command `k`, which the guard does not know'],
  ])('%s', (script, problem) => {
    expect(sedScriptProblem(script)).toBe(problem);
  });
});
