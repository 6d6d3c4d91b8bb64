import { forEachChild, type ParsedScript, type SyntaxNode } from 'unbash';

/**
 * `sh -c CODE` runs under dash on Debian and Ubuntu (under bash elsewhere). The parser reads bash
 * and has no POSIX mode, and bash-only syntax means something else to dash: there `[[ a > f ]]`
 * runs a program named `[[` with its output sent to `f` (the file is truncated), `cmd &> f`
 * runs cmd in the background and truncates f, `time -o f ls` runs the program `time`, `$'x'`
 * and `{a,b}` are plain text. So code for sh or dash is judged as bash, and refused where it uses
 * what only bash reads its way: the line then means the same to both shells.
 */
export function posixProblem(script: ParsedScript): string | undefined {
  let problem: string | undefined;
  const visit = (node: SyntaxNode): void => {
    if (problem !== undefined) return;
    problem = bashOnly(node);
    if (problem === undefined) forEachChild(node, visit);
  };
  visit(script);
  return problem === undefined ? undefined : `${problem}, which dash (sh) reads otherwise`;
}

function bashOnly(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'TestCommand':
      return '`[[ … ]]` is bash syntax';
    case 'ArithmeticCommand':
    case 'ArithmeticFor':
      return '`(( … ))` is bash syntax';
    case 'Select':
    case 'Coproc':
      return `\`${node.type.toLowerCase()}\` is bash syntax`;
    case 'ArithmeticExpansion':
      return node.text.startsWith('$[') ? '`$[ … ]` is bash syntax' : undefined;
    case 'HereString':
      return '`<<<` is bash syntax';
    case 'Redirect':
      if (node.descriptor?.type === 'FileDescriptorVariable') return '`{name}>` is bash syntax';
      if (node.operator === '&>' || node.operator === '&>>') {
        return `\`${node.operator}\` is bash syntax`;
      }
      if (node.operator === '>&' && !/^(\d+|-)$/.test(node.target?.text ?? '')) {
        return '`>&FILE` is bash syntax';
      }
      return undefined;
    case 'Pipeline':
      if (node.operators.includes('|&')) return '`|&` is bash syntax';
      if (node.prefixes.some((prefix) => prefix.type === 'Time')) {
        return '`time` is a bash keyword (dash runs the program time)';
      }
      return undefined;
    case 'AnsiCQuoted':
      return `\`${node.text}\` ($'…' quoting) is bash syntax`;
    case 'LocaleString':
      return `\`${node.text}\` ($"…" quoting) is bash syntax`;
    case 'BraceExpansion':
      return `the brace expansion \`${node.text}\` is bash syntax`;
    case 'ExtendedGlob':
      return `the extended glob \`${node.text}\` is bash syntax`;
    case 'ProcessSubstitution':
      return `the process substitution \`${node.text}\` is bash syntax`;
    case 'ParameterExpansion':
      if (node.index !== undefined || node.prefix === '!') {
        return `\`${node.text}\` (arrays, indirection) is bash syntax`;
      }
      if (node.operation && !['Default', 'Remove'].includes(node.operation.type)) {
        return `\`${node.text}\` is bash syntax`;
      }
      return undefined;
    case 'Assignment':
      if (node.index !== undefined || node.value.type === 'ArrayValue' || node.append) {
        return `\`${node.text}\` (arrays, +=) is bash syntax`;
      }
      return undefined;
    default:
      return undefined;
  }
}
