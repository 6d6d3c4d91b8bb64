/**
 * A message of several problems, shown so that each stays on a line of its own: its first line
 * says what is wrong, each further line is one problem (a config section's schema issues, one
 * per line from formatConfigIssues in src/config/errors.ts). Every place that shows such a
 * message — `list`, `test`, `doctor`, the refusal a broken extension gives every tool call —
 * lays it out here, the further lines under the first one, indented by `indent`; no place runs
 * them together. Blank lines and trailing white space go; a one-line message comes back as it is.
 * With `maxLines`, lines past it are counted instead of shown.
 */
export function indentedMessage(
  message: string,
  indent: string,
  maxLines = Number.POSITIVE_INFINITY,
): string {
  const [first = '', ...rest] = message
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const shown = rest.slice(0, Math.max(0, maxLines - 1));
  const hidden = rest.length - shown.length;
  return [
    first.trim(),
    ...shown.map((line) => `${indent}${line}`),
    ...(hidden > 0 ? [`${indent}(and ${hidden} more)`] : []),
  ].join('\n');
}
