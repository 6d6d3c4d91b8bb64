/**
 * Loops and `read` set shell variables. A variable already exported is passed on to every
 * program the loop runs (`for PATH in plans; do ls; done` runs plans/ls), and bash's own
 * variables change what the shell does (`IFS`, `CDPATH`, `BASH_ENV`). Those are all upper case
 * (or have an underscore, as `http_proxy`); a name of lower-case letters and digits is one no
 * program reads, so it is the only kind a loop or `read` may set without a plan.
 */
export function variableNameProblem(name: string): string | undefined {
  return /^[a-z][a-z0-9]*$/.test(name)
    ? undefined
    : `it sets the variable ${name} (only names of lower-case letters and digits, as \`f\` or \`line\`, are known to be read by no program)`;
}

/**
 * `IFS=… read …`: an assignment before a builtin lasts for that builtin alone, and IFS only
 * says where read splits the line.
 */
export function harmlessAssignment(program: string, assignment: string): boolean {
  return program === 'read' && /^IFS=/.test(assignment);
}
