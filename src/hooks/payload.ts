import type { z } from 'zod';
import type { HookDeclaration, WireForm } from './declaration.js';

/** The payload side of a declaration, which is all these read. */
interface PayloadSide<Input> {
  readonly name: string;
  readonly input: z.ZodType<Input>;
  readonly wire: Pick<WireForm<Input, unknown>, 'names' | 'fromWire'>;
}

/** A hook's payload read from data, or the first thing wrong with the data, worded. */
export type ReadPayload<Input> = { input: Input } | { problem: string };

/**
 * A hook's payload from data (a bridge request's params, `hermes extensions test --input`),
 * checked against the declaration's `input` schema. `'wire'` takes only the snake_case names, as
 * the bridge always has; `'either'` takes the camelCase names as well. A problem names the field
 * as the data spells it (a missing one as the data spells the others), e.g. `tool_args must be
 * an object`, `messages[0] must be an object`.
 */
export function readPayload<Input>(
  decl: PayloadSide<Input>,
  data: Readonly<Record<string, unknown>>,
  spelling: 'wire' | 'either',
): ReadPayload<Input> {
  const names = decl.wire.names as Readonly<Record<string, string>>;
  const fields: Record<string, unknown> = {};
  const spelled = new Map<string, string>();
  for (const [field, wire] of Object.entries(names)) {
    const key = Object.hasOwn(data, wire)
      ? wire
      : spelling === 'either' && Object.hasOwn(data, field)
        ? field
        : undefined;
    if (key === undefined) continue;
    fields[field] = data[key];
    spelled.set(field, key);
  }
  const parsed = decl.input.safeParse(fields);
  if (!parsed.success) {
    // A missing field is named as the rest of the data spells its fields.
    const snake = spelling === 'wire' || [...spelled].some(([field, key]) => key !== field);
    const named = (field: string) =>
      spelled.get(field) ?? (snake ? (names[field] ?? field) : field);
    return { problem: wordIssue(firstIssue(parsed.error), named) };
  }
  return {
    input: decl.wire.fromWire === undefined ? parsed.data : decl.wire.fromWire(parsed.data),
  };
}

/**
 * What is wrong with a payload a caller handed to the Turn, worded from the declaration's schema;
 * only called once the Turn's own cheap check has failed. `root` names the argument.
 */
export function describeInput(
  decl: Pick<HookDeclaration<unknown, unknown, unknown>, 'name' | 'input'>,
  input: unknown,
  root: string,
): string {
  const parsed = decl.input.safeParse(input);
  return parsed.success
    ? `${root} does not fit ${decl.name}`
    : wordIssue(firstIssue(parsed.error), (field) => field, root);
}

export function firstIssue(error: z.ZodError): z.core.$ZodIssue {
  return error.issues[0] as z.core.$ZodIssue;
}

const KINDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

/**
 * One zod issue as "`where` must be …": the path with its first key as `name` gives it (`root`
 * when the value itself is wrong), array indexes in brackets.
 */
export function wordIssue(
  issue: z.core.$ZodIssue,
  name: (key: string) => string = (key) => key,
  root = 'params',
): string {
  const [first, ...rest] = issue.path;
  const where =
    first === undefined
      ? root
      : rest.reduce<string>(
          (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`),
          typeof first === 'number' ? `${root}[${first}]` : name(String(first)),
        );
  return `${where} ${problem(issue)}`;
}

function problem(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return issue.origin === 'string' && Number(issue.minimum) === 1
        ? 'must not be empty'
        : issue.message;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return issue.message;
  }
}
