import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import {
  type AndOr,
  type Command,
  type CommandNode,
  forEachChild,
  type ParsedScript,
  type PipelineNode,
  parse,
  type Redirection,
  type Statement,
  type SyntaxNode,
  type TestExpression,
  type Word,
} from 'unbash';
import {
  DATA_VARIABLES,
  type Evaluation,
  evaluatesLoopName,
  evaluatingCommand,
  evaluatingExpansion,
  evaluatingTest,
} from './data-variables.js';
import { expansionProblem } from './expansions.js';
import { enter, join, type ShellCwd, type State, same, startCwd } from './folders.js';
import { testExpressionProblem } from './test-expression.js';
import { variableNameProblem } from './variables.js';
import { literalWord, type ShellWord, shellWord } from './words.js';

export type { ShellCwd } from './folders.js';

export interface ShellRedirect {
  operator: string;
  target: ShellWord;
  /** Opens its target for writing (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&FILE`). */
  write: boolean;
  /** Where a relative target resolves from; undefined when it cannot be known. */
  cwd: ShellCwd | undefined;
}

/** One simple command, with its words as the shell would pass them. */
export interface ShellCommand {
  /** The program as named (its literal value; the source text when it is not literal). */
  name: string;
  /** The arguments' values (source text for words only known at run time). */
  args: string[];
  program: ShellWord | undefined;
  words: ShellWord[];
  /** `NAME=value` words before the program. */
  assignments: string[];
  redirects: ShellRedirect[];
  /** The folder it runs in; undefined when an earlier `cd` makes it unknown. */
  cwd: ShellCwd | undefined;
  /** Its source text, for messages. */
  text: string;
}

/**
 * A shell line taken apart by a real bash parser (unbash): every simple command at every level
 * (lists, pipelines, groups, subshells, `if`/`while`, substitutions, here-documents), in the
 * order the shell meets them, with the folder each runs in, and the constructs that were not
 * understood (`problems`): a caller that must be sure refuses the line when there is any.
 */
export interface ShellScript {
  commands: ShellCommand[];
  problems: string[];
  /** Whether the parser understood all of it (no syntax errors): else commands may be missing. */
  parsed: boolean;
}

/** Parses and walks a shell line starting in `cwd` (absolute). */
export function parseShell(line: string, cwd: string): ShellScript {
  const start = startCwd(cwd);
  const walker = new Walker(line);
  if (start === undefined) walker.problem(`the working directory ${cwd} does not exist`);
  walker.script(parse(line), start);
  walker.dataProblem();
  return walker.found;
}

/** A command run without a shell (an argument vector), as a script of that one command. */
export function argvScript(argv: readonly string[], cwd: string): ShellScript {
  const [program, ...words] = argv.map(literalWord);
  const start = startCwd(cwd);
  const command: ShellCommand = {
    name: program?.value ?? '',
    args: words.map((word) => word.value),
    program,
    words,
    assignments: [],
    redirects: [],
    cwd: start,
    text: argv.join(' '),
  };
  const problems = start === undefined ? [`the working directory ${cwd} does not exist`] : [];
  return { commands: program === undefined ? [] : [command], problems, parsed: true };
}

/** A walk of one parsed line. */
class Walker {
  constructor(
    private readonly source: string,
    readonly found: ShellScript = { commands: [], problems: [], parsed: true },
    /** Whether the line sets variables from data, and where it evaluates a value as code. */
    private readonly data: { sets: boolean; evaluates?: string } = { sets: false },
  ) {}

  problem(reason: string): void {
    if (!this.found.problems.includes(reason)) this.found.problems.push(reason);
  }

  /** A line that both sets variables from data and evaluates one (data-variables.ts). */
  dataProblem(): void {
    if (this.data.sets && this.data.evaluates !== undefined) {
      this.problem(`${DATA_VARIABLES} (\`${this.data.evaluates}\`)`);
    }
  }

  private evaluates(evaluation: Evaluation | undefined): void {
    if (evaluation === undefined) return;
    this.data.evaluates ??= evaluation.where;
    const problem = evaluatesLoopName(evaluation);
    if (problem) this.problem(problem);
  }

  script(script: ParsedScript, state: State): State {
    for (const error of script.errors ?? []) {
      this.found.parsed = false;
      this.problem(`the shell cannot parse it: ${error.message}`);
    }
    // Substitutions and here-documents parse their own text; its positions index their source.
    const walker = script.source === undefined ? this : this.nested(script.source);
    return walker.statements(script.commands, state);
  }

  private nested(source: string): Walker {
    return new Walker(source, this.found, this.data);
  }

  private statements(statements: readonly Statement[], state: State): State {
    let current = state;
    for (const statement of statements) {
      const after = this.node(statement.command, current);
      // A background job runs in a subshell: its `cd` changes nothing here.
      current = statement.background ? current : after;
    }
    return current;
  }

  private node(node: PipelineNode | AndOr, state: State): State {
    switch (node.type) {
      case 'AndOr':
        return this.andOr(node, state);
      case 'Pipeline': {
        // `time cmd`, `! cmd`: one command, run here.
        if (node.commands.length === 1) return this.command(node.commands[0] as CommandNode, state);
        // Every part of a pipeline runs in a subshell of its own.
        for (const command of node.commands) this.command(command, state);
        return state;
      }
      default:
        return this.command(node, state);
    }
  }

  /**
   * `a && b`: b runs after a succeeded, so it sees what a did; `a || b`: b runs after a failed,
   * which may be halfway. After the list any of them may have been the last to run.
   */
  private andOr(node: AndOr, state: State): State {
    let current = this.node(node.commands[0] as PipelineNode, state);
    let before = state;
    let end = join(state, current);
    node.operators.forEach((operator, i) => {
      const start = operator === '&&' ? current : join(before, current);
      before = current;
      current = this.node(node.commands[i + 1] as PipelineNode, start);
      end = join(end, current);
    });
    return end;
  }

  private command(node: CommandNode, state: State): State {
    switch (node.type) {
      case 'Command':
        return this.simple(node, state);
      case 'Redirected': {
        // `{ …; } > file`: the redirections apply to the whole group; they are reported as a
        // command without a program, as a lone `> file` is.
        const redirects: ShellRedirect[] = [];
        for (const redirect of node.redirects) this.redirect(redirect, state, redirects);
        this.found.commands.push({
          name: '',
          args: [],
          program: undefined,
          words: [],
          assignments: [],
          redirects,
          cwd: state,
          text: this.source.slice(node.pos, node.end),
        });
        return this.command(node.command, state);
      }
      case 'Subshell':
        this.statements(node.body.commands, state);
        return state;
      case 'BraceGroup':
        return this.statements(node.body.commands, state);
      case 'If': {
        const clause = this.statements(node.clause.commands, state);
        let end = join(clause, this.statements(node.then.commands, clause));
        let from = clause;
        for (const elif of node.elif) {
          from = this.statements(elif.clause.commands, from);
          end = join(end, join(from, this.statements(elif.then.commands, from)));
        }
        if (node.else) end = join(end, this.statements(node.else.commands, from));
        return end;
      }
      case 'While': {
        const clause = this.statements(node.clause.commands, state);
        const body = this.statements(node.body.commands, clause);
        if (same(clause, state) && same(body, state)) return state;
        // A loop that changes folders runs its next round elsewhere: walk it again from unknown.
        this.statements(node.clause.commands, undefined);
        this.statements(node.body.commands, undefined);
        return undefined;
      }
      case 'TestCommand': {
        const problem = testExpressionProblem(node.expression);
        if (problem) this.problem(problem);
        this.test(node.expression, state);
        return state;
      }
      case 'For': {
        // The loop variable is a word only known when the body runs, as any variable is.
        const problem = variableNameProblem(node.name.text);
        if (problem !== undefined) {
          this.problem(`a \`for\` loop: ${problem}`);
          for (const word of node.wordlist ?? []) this.word(word, state);
          this.statements(node.body.commands, undefined);
          return undefined;
        }
        this.data.sets = true;
        for (const word of node.wordlist ?? []) this.word(word, state);
        const body = this.statements(node.body.commands, state);
        if (same(body, state)) return state;
        // A body that changes folders runs its next round elsewhere: walk it again from unknown.
        this.statements(node.body.commands, undefined);
        return undefined;
      }
      // Not understood: a problem. Their commands are still walked (from an unknown folder, as
      // they may run any number of times), so a caller that only looks for commands finds them.
      case 'Select':
        this.problem(
          `a \`${node.type.toLowerCase()}\` loop (it sets the variable ${node.name.text})`,
        );
        for (const word of node.wordlist ?? []) this.word(word, state);
        this.statements(node.body.commands, undefined);
        return undefined;
      case 'ArithmeticFor':
      case 'ArithmeticCommand':
        this.problem('an arithmetic command `((…))`');
        this.expansions(node, state);
        if (node.type === 'ArithmeticFor') this.statements(node.body.commands, undefined);
        return undefined;
      case 'Case':
        this.problem('a `case` statement');
        this.word(node.word, state);
        for (const item of node.items) this.statements(item.body.commands, undefined);
        return undefined;
      case 'Function':
        this.problem(
          `a function definition (\`${node.name.text}\`), which would replace a program's name`,
        );
        if (node.body.type !== 'CompoundList') this.command(node.body, undefined);
        return undefined;
      case 'Coproc':
        this.problem('a coprocess');
        if (node.body.type !== 'CompoundList') this.command(node.body, undefined);
        return undefined;
      default:
        this.problem(`the construct ${(node as { type: string }).type}`);
        return state;
    }
  }

  private test(expression: TestExpression, state: State): void {
    this.evaluates(evaluatingTest(expression));
    forEachChild(expression as SyntaxNode, (child) => {
      if (child.type === 'Word') {
        const word = this.word(child, state);
        if (!word.literal)
          this.problem(`\`${word.text}\` in \`[[ … ]]\` is only known when it runs`);
      } else if (child.type !== 'Negation') {
        this.test(child as TestExpression, state);
      }
    });
  }

  private simple(node: Command, state: State): State {
    const assignments: string[] = [];
    const redirects: ShellRedirect[] = [];
    for (const item of node.prefix) {
      if (item.type === 'Assignment') {
        assignments.push(item.text);
        this.expansions(item, state);
      } else {
        this.redirect(item, state, redirects);
      }
    }
    const program = node.name ? this.word(node.name, state) : undefined;
    const words: ShellWord[] = [];
    for (const item of node.suffix) {
      if (item.type === 'Word') words.push(this.word(item, state));
      else if (item.type === 'Assignment') {
        // `export X=1`, `declare X=1`: an argument the shell treats as an assignment.
        assignments.push(item.text);
        this.expansions(item, state);
      } else this.redirect(item, state, redirects);
    }
    const command: ShellCommand = {
      name: program?.value ?? '',
      args: words.map((word) => word.value),
      program,
      words,
      assignments,
      redirects,
      cwd: state,
      text: this.source.slice(node.pos, node.end),
    };
    this.found.commands.push(command);
    if (program?.literal) {
      // `read x`, and `command read x` (a wrapper may run the builtin here).
      if ([program, ...words].some((word) => word.literal && word.value === 'read')) {
        this.data.sets = true;
      }
      this.evaluates(evaluatingCommand(program.value, words));
    }
    return program?.literal && ['cd', 'pushd', 'popd'].includes(program.value)
      ? this.changeDirectory(command, state)
      : state;
  }

  /** `cd DIR` to a folder that exists and whose name and real place agree; anything else is not followed. */
  private changeDirectory(command: ShellCommand, state: State): State {
    if (command.name !== 'cd') {
      this.problem(`\`${command.name}\` (only \`cd\` is followed)`);
      return undefined;
    }
    const [target, ...rest] = command.words;
    if (rest.length > 0 || target?.mayBeOption || (target && !target.literal)) {
      this.problem(`\`${command.text}\` (only \`cd DIR\` with one literal folder is followed)`);
      return undefined;
    }
    if (state === undefined) return undefined;
    const name = target?.value ?? homedir();
    if (!isAbsolute(name) && !/^\.\.?(\/|$)/.test(name) && process.env.CDPATH) {
      this.problem(`\`${command.text}\` while CDPATH is set (write \`cd ./${name}\`)`);
      return undefined;
    }
    const next = enter(state, name);
    if (next === undefined) {
      this.problem(
        `\`${command.text}\`: no such folder, or it is reached through a symbolic link whose target differs from its name`,
      );
    }
    return next;
  }

  private redirect(item: Redirection, state: State, into: ShellRedirect[]): void {
    if (item.descriptor?.type === 'FileDescriptorVariable') {
      this.problem(`the redirection {${item.descriptor.name}} (it sets a variable)`);
    }
    if (item.type === 'HereDoc') {
      // An unquoted delimiter makes the body subject to expansions, substitutions included.
      if (!item.delimiter?.quoted) this.expansions(item.body, state);
      return;
    }
    if (item.target === undefined) {
      this.problem(`a redirection without a target`);
      return;
    }
    const target = this.word(item.target, state);
    const operator = item.operator;
    const duplicate = (operator === '>&' || operator === '<&') && /^(\d+-?|-)$/.test(target.value);
    const write =
      item.type === 'Redirect' &&
      !duplicate &&
      (operator === '>' ||
        operator === '>>' ||
        operator === '>|' ||
        operator === '&>' ||
        operator === '&>>' ||
        operator === '<>' ||
        operator === '>&');
    const redirect: ShellRedirect = { operator, target, write, cwd: state };
    if (write && !target.literal) {
      this.problem(`the redirection target \`${target.text}\` is only known when it runs`);
    }
    into.push(redirect);
  }

  private word(word: Word, state: State): ShellWord {
    this.expansions(word, state);
    return shellWord(word);
  }

  /** Walks every substitution inside a node: their commands run too, each in a subshell. */
  private expansions(node: SyntaxNode, state: State): void {
    forEachChild(node, (child) => {
      switch (child.type) {
        case 'CommandExpansion':
        case 'ProcessSubstitution':
        case 'ArithmeticCommandExpansion':
          if (child.script) this.script(child.script, state);
          else this.problem(`\`${child.text}\` cannot be parsed`);
          return;
        case 'ExtendedGlob':
          this.problem(`the extended glob \`${child.text}\``);
          return;
        case 'ArithmeticExpansion':
        case 'ParameterExpansion': {
          const problem = expansionProblem(child);
          if (problem) this.problem(problem);
          this.evaluates(evaluatingExpansion(child));
          break;
        }
      }
      this.expansions(child, state);
    });
  }
}
