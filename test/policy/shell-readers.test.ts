import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeShell } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * The readers that let ordinary reading through (awk, find -exec, loops and read, npm, version
 * flags, git's short options): what they accept, and the attempts to use each to write or run
 * something, which must stay refused.
 */
function project() {
  return tree({
    'package.json': '{"name":"app"}\n',
    'src/app.ts': 'x\n',
    'packages/core/package.json': '{}\n',
    'plans/.keep': '',
  });
}

const judge = (line: string, root = project()) => analyzeShell(line, { root });

describe('new readers: what passes', () => {
  const PASSES = [
    // awk: computing and printing to standard output
    "awk 'function twice(x) { return x * 2 } { print twice($1) }' f",
    'awk \'{ if (/a/) print "x"; else print "y" }\' f',
    "awk '{ print ($1 > 2) }' f",
    "awk '{ print $1 == 2, $2 }' f",
    "awk 'BEGIN { while ((getline line) > 0) n++; print n }'",
    "awk '{ getline; print }' f",
    "awk -F'|' '{ print $2 }' f",
    "awk '/a|b/' f",
    "awk '$1 ~ /x\\/y/' f",
    "awk '$0 ~ /[[:alpha:]]+/' f",
    "awk '/[]a]/' f",
    "awk '{ x = 4 / 2; y = x /2; print x, y }' f",
    "awk '{ n++ } END { print n / NR }' f",
    'awk \'BEGIN { print ENVIRON["HOME"] }\'',
    "awk '{ print $1 }' FS=, f",
    'awk \'{ printf("%s\\n", toupper($0)) }\' f',
    "awk '{ print x (NR) }' f",
    'awk \'# a comment with system("x") and > and |\n{ print }\' f',
    'awk \'{ print "a | b > c" }\' f',
    'awk \'{ sub(/x/, "y"); gsub("a", "b"); print substr($0, 1, 3) }\' f',
    'gawk --version',
    // find -exec: the command is judged like any other
    "find . -name '*.ts' -exec grep -l x {} \\;",
    'find src -exec sh -c \'wc -l "$1"\' _ {} \\;',
    'find src -exec git log -1 --oneline -- {} \\;',
    'find src -exec cat {} + -o -print',
    // loops, read
    'for f in a b; do echo "$f"; done; for g; do echo "$g"; done',
    'until true; do echo; done',
    'read -r line < src/app.ts',
    'IFS=, read -r a b <<< "x,y"',
    'read -a parts <<< "a b"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'for f in a; do echo "${f%.ts} ${#f} ${f/x/y} ${arr[@]}"; done',
    'echo $((1 + 2)); [ -v HOME ] && echo set',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'echo $((COLUMNS / 2)) ${HOME:0:3} ${PATH//:/ }',
    // npm's reading commands, from the project root
    'npm ls --depth 1',
    'npm why zod',
    'npm outdated --json',
    'npm audit --omit=dev',
    'npm root -g',
    'npm view @types/node@20 dist.tarball versions[0]',
    'npm ls react@^18 @scope/pkg',
    // --version, --help
    'rg --version',
    'fd --help',
    'sed --version',
    'find --version',
    'node -h',
    'python3 -V',
    'env node --version',
    // git's short options
    'git shortlog -sn',
    'git shortlog -sne HEAD',
    'git status -uno',
    'git status -u',
    'git status -uall --short',
    'git config --global user.email',
    'git describe --tags --dirty',
    'git tag -l -n1',
    'git diff --stat=200 --color=never',
    'git log --decorate=short --patch-with-stat',
    'git branch -r --merged',
    'git branch --contains HEAD',
    'git cherry -v',
    'git count-objects -vH',
    'git remote get-url --push origin',
  ];

  it.each(PASSES)('%s', (line) => {
    expect(judge(line), line).toMatchObject({ kind: 'analyzed', writes: [] });
  });

  it('a loop body that changes folders leaves the folder unknown after it', () => {
    const analysis = judge('for f in a; do cd plans; done; echo x > a.md');
    expect(analysis.kind).toBe('analyzed');
    if (analysis.kind === 'analyzed') {
      expect(analysis.writes.map((write) => [write.path, write.cwd])).toEqual([
        ['a.md', undefined],
      ]);
    }
  });

  it("what find -exec's command writes is reported, from find's folder", () => {
    const root = project();
    const analysis = judge('find . -exec mkdir -p src/x \\;', root);
    expect(analysis.kind).toBe('analyzed');
    if (analysis.kind === 'analyzed') {
      expect(analysis.writes.map((write) => [write.path, write.by, write.cwd?.lexical])).toEqual([
        ['src/x', 'mkdir', root],
      ]);
    }
  });
});

describe('new readers: attempts to write or run something are refused', () => {
  const REFUSED: Array<[string, RegExp]> = [
    // awk
    ['awk \'BEGIN{system("touch src/x")}\'', /runs a command \(`system`\)/],
    ['awk \'BEGIN { system ("touch src/x") }\'', /runs a command/],
    ['awk \'BEGIN { print 2system("touch src/x") }\'', /runs a command/],
    ['awk \'{ print $1 /2; system("touch src/x"); y = 1/ 2 }\'', /runs a command/],
    ['awk \'{print > "src/x"}\' f', /writes a file \(`>` in `print`\)/],
    ['awk \'{print >> "src/x"}\' f', /writes a file \(`>>`/],
    ['awk \'{printf "%s", $0 > "src/x"}\' f', /writes a file/],
    ['awk \'{printf("%s", $0) > "src/x"}\' f', /writes a file/],
    ['awk \'{print "a",\n "b" > "src/x"}\' f', /writes a file/],
    ['awk \'{print "a" &&\n "b" > "src/x"}\' f', /writes a file/],
    ['awk \'{ print | "sh" }\' f', /runs a command \(`\|`/],
    ['awk \'BEGIN { "date" | getline d }\'', /runs a command/],
    ['awk \'BEGIN { "sh" |& getline }\'', /runs a command \(`\|&`/],
    ['awk \'BEGIN { while ((getline l < "src/app.ts") > 0) print l }\'', /reads a file/],
    ['awk \'BEGIN { getline $1 < "f" }\'', /getline/],
    ['awk \'@include "plans/x.awk"\'', /has `@`/],
    ['awk \'BEGIN { f = "system"; @f("touch src/x") }\'', /runs a command|has `@`/],
    ['awk \'BEGIN { PROCINFO["sorted_in"] = "f" }\'', /PROCINFO/],
    ["awk 'BEGIN { awk::x = 1 }'", /qualified name/],
    ['awk \'BEGIN { evil("x") }\'', /calls `evil`/],
    ["awk '/[/]/; BEGIN { x = 1 }'", /`\/` in brackets/],
    ["awk '/[[:alpha:]/]/'", /`\/` in brackets/],
    ['awk \'BEGIN { x = "a\\\nb" }\'', /string continued/],
    ["awk 'BEGIN { x = \"a }'", /string that does not end/],
    ["awk '/abc'", /regular expression that does not end/],
    ["awk 'BEGIN { x = 1 ` 2 }'", /has ```, which/],
    ['awk -f plans/x.awk f', /`-f` is not an option of awk/],
    ["awk -i inplace '{ print }' src/app.ts", /`-i` is not an option of awk/],
    ['gawk -E plans/x.awk', /`-E` is not an option of gawk/],
    ['mawk -W exec plans/x.awk', /`-W` is not an option of mawk/],
    ["gawk --source='BEGIN{}' -f x", /`--source` is not an option/],
    ['awk "$PROG" f', /only known when the command runs/],
    ['awk', /awk without a program/],
    ["echo x | xargs awk '{ print }'", /only known when it runs/],
    // find -exec
    ['find . -exec rm {} +', /`rm` is not a program known to only read \(in find's `-exec`\)/],
    ["find . -exec sh -c 'rm {}' \\;", /the code `'rm \{\}'` is only known when it runs/],
    ['find . -exec sh -c "rm src/app.ts" \\;', /`rm`/],
    ['find . -execdir cat {} \\;', /`-execdir` is not known to only read/],
    ['find . -ok cat {} \\;', /`-ok` is not known to only read/],
    ['find . -exec cat {} \\; -delete', /`-delete`/],
    ['find . -exec cat {}', /without a `;` or `\{\} \+`/],
    ['find . -exec {} \\;', /program `\{\}` is only known when it runs/],
    ['find . -exec \\;', /without a program/],
    ['find . -exec sort -o src/x {} +', /`-o` is not an option of sort/],
    ['find . -exec tee {} \\;', /only known when the command runs/],
    ['find . -exec git -c core.pager=x log {} \\;', /`-c`/],
    ['find . -exec env PATH=plans ls {} +', /sets an environment variable/],
    ['find . -exec cat {} + rm x \\;', /`rm`/],
    ['find . -exec cat {} "$semi" -exec rm x \\;', /`"\$semi"` in find's `-exec` is only known/],
    ['find . -exec grep x * \\;', /`\*` in find's `-exec` is only known/],
    // loops and read
    ['for PATH in plans; do ls; done', /it sets the variable PATH/],
    ['for IFS in x; do ls; done', /it sets the variable IFS/],
    ['for http_proxy in x; do git log; done', /it sets the variable http_proxy/],
    ['for f in x; do rm "$f"; done', /`rm`/],
    ['for f in *; do $f; done', /program `\$f` is only known/],
    ['for f in x; do echo > "$f"; done', /redirection target/],
    ['for f in $(rm src/app.ts); do echo; done', /`rm`/],
    ['for f in src/*.ts; do sort "$f"; done', /could be an option of sort/],
    ['select f in a; do ls; done', /`select` loop/],
    ['while read PATH; do ls; done', /read: it sets the variable PATH/],
    ['while read -r f; do echo x > "$f"; done', /redirection target/],
    ['read -u 3 x', /`-u` is not an option of read/],
    ['read -e x', /`-e` is not an option of read/],
    ['IFS= read PATH', /it sets the variable PATH/],
    ['BASH_ENV=plans/x read f', /assignment `BASH_ENV=plans\/x`/],
    ['IFS= ls', /assignment `IFS=`/],
    ['read "$v"', /only known when the command runs/],
    // a value set from data, evaluated as code (each runs touch with x = a[$(touch src/y)])
    ["for x in 'a[$(touch src/y)]'; do echo $((x)); done", /`\$\(\(x\)\)` evaluates `x` as code/],
    ['for x in plans/*; do echo $[x]; done', /evaluates `[a-z]+` as code/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    ['for x in plans/*; do echo ${a[x]}; done', /evaluates `[a-z]+` as code/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    ['for x in plans/*; do echo ${s:x}; done', /evaluates `[a-z]+` as code/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    ['for x in plans/*; do echo ${!x}; done', /evaluates `x` as code|indirect|`\$\{!x\}`/],
    ['for x in plans/*; do [[ x -eq 1 ]]; done', /evaluates `[a-z]+` as code/],
    ['for x in plans/*; do [[ -v x ]]; done', /evaluates `[a-z]+` as code/],
    ['for x in plans/*; do [ -v "$x" ]; done', /evaluates `[a-z]+` as code/],
    ['for x in plans/*; do test -R "$x"; done', /evaluates `[a-z]+` as code/],
    ['read x < plans/x; echo $((x))', /evaluates `[a-z]+` as code/],
    ['echo $((x)); read x < plans/x', /evaluates `[a-z]+` as code/],
    ['command read x < plans/x; echo "$(echo $((x)))"', /evaluates `[a-z]+` as code/],
    ['git ls-files | while read f; do echo $((f + 1)); done', /evaluates `[a-z]+` as code/],
    ["awk '{ print }\r\n' f", /carriage return/],
    // git config reads one key; git remote get-url one name
    ['git config edit', /may set a value/],
    ['git config user.name evil', /may set a value/],
    ['git config --global core.pager x', /may set a value/],
    ['git config --unset user.name', /`--unset` is not an option/],
    ['git remote add x y', /operand/],
    ['git tag -n evil', /creates it/],
    ['git branch --merged main evil', /creates it/],
    ['git log --stat=x --output=src/x', /`--output`/],
    ['git cherry -v a b c d', /more than 3 operand/],
    ['git remote get-url origin upstream', /more than 1 operand/],
    ['git remote get-url --push=x origin', /`--push` of git remote takes no value|--push/],
    // the same in a later call of a shell that persists: a lower-case name is never evaluated
    ['echo $((i + 1))', /evaluates `i` as code/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    ['echo ${arr[n]} ${s:n:2} ${!ref}', /evaluates `n` as code/],
    ['[[ n -gt 1 ]] && echo big', /evaluates `n` as code/],
    ['[ -v "$ref" ] && echo set', /evaluates `ref` as code/],
    // and in a line that sets data variables, no evaluation at all
    ['for f in a; do echo $((COLUMNS / 2)); done', /sets variables from data.*COLUMNS/],
    // npm
    ['npm install', /`npm install` is not known to only read/],
    ['npm run build', /`npm run`/],
    ['npm exec evil', /`npm exec`/],
    ['npm', /npm without a command/],
    ['npm ls --prefix plans', /`--prefix` is not an option of npm ls/],
    ['npm --userconfig plans/x ls', /`npm --userconfig`/],
    ['npm audit fix', /npm audit with an operand/],
    ['npm version patch', /`npm version`/],
    ['npm -v install', /`npm -v`/],
    ['npm_config_script_shell=plans/x npm ls', /assignment/],
    ['cd packages/core && npm ls', /packages\/core\/package.json/],
    ['echo ls | xargs npm', /only known when it runs/],
    ['npx tsc --version', /`npx` is not a program known to only read/],
    ['npm view ./plans/pkg', /not a package name/],
    ['npm view plans/evil.tgz', /not a package name/],
    ['npm view evil.tgz version', /not a package name/],
    ['npm view github:evil/pkg', /not a package name/],
    ['npm view evil/pkg', /not a package name/],
    ['npm view git+https://example.com/x.git', /not a package name/],
    ['npm ls file:plans', /not a package name/],
    ['npm view zod "$(rm src/app.ts)"', /`rm`/],
    // interpreters only print their version
    ['node -v -e "x"', /`node` runs code/],
    ["node -e \"require('fs').rmSync('src')\"", /`node` runs code/],
    ['node', /`node` runs code/],
    ['python3 -c "import os"', /`python3` runs code/],
    ['python3 -V plans/x.py', /`python3` runs code/],
    ['echo x | xargs node --version', /`node` runs code/],
    ['sed --version -i s/a/b/ src/app.ts', /`--version` is not an option of sed/],
    ['echo --pre=x | xargs rg --version', /only known when it runs/],
  ];

  it.each(REFUSED)('%s', (line, reason) => {
    const analysis = judge(line);
    expect(analysis.kind, line).toBe('opaque');
    if (analysis.kind === 'opaque') expect(analysis.reason).toMatch(reason);
  });

  it.each([
    ['plans/.python-version', 'python3 --version'],
    ['plans/.tool-versions', 'node -v'],
    ['plans/.mise.toml', 'npm ls'],
    ['plans/package.json', 'node --help'],
  ])('with %s, `cd plans && %s` is refused', (file, line) => {
    const root = project();
    writeFileSync(join(root, file), 'x\n');
    expect(judge(`cd plans && ${line}`, root)).toMatchObject({
      kind: 'opaque',
      reason: expect.stringContaining(`would read ${file}`),
    });
    expect(judge(line, root)).toMatchObject({ kind: 'analyzed' });
  });

  it('npm reads no .npmrc a folder below the project root holds', () => {
    const root = project();
    mkdirSync(join(root, 'plans/pkg'));
    writeFileSync(join(root, 'plans/.npmrc'), 'script-shell=plans/x\n');
    expect(judge('cd plans/pkg && npm -v', root)).toMatchObject({
      kind: 'opaque',
      reason: expect.stringMatching(/plans\/\.npmrc/),
    });
    expect(judge('npm -v', root)).toMatchObject({ kind: 'analyzed' });
  });
});
