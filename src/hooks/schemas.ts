import { z } from 'zod';
import { isPlainObject } from './frozen.js';

/** Building blocks for the per-hook result schemas. */
export const metadataSchema = z
  .custom<Record<string, unknown>>(isPlainObject, 'metadata must be a plain object')
  .optional();

export const plainObjectSchema = z.custom<Record<string, unknown>>(
  isPlainObject,
  'must be a plain object',
);

export const textSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must be a non-empty string');

export function actionSchema<A extends string, V extends z.ZodType>(action: A, value: V) {
  return z.strictObject({ action: z.literal(action), value, metadata: metadataSchema });
}

/** Building blocks for the payload schemas (`HookDeclaration.input`). */
export function objectInput<T extends object = Record<string, unknown>>() {
  // A custom check keeps the object as it is: zod's own object schema would copy every message
  // of a long conversation, and drop the fields a host's messages carry besides the named ones.
  return z.custom<T>(isPlainObject, 'must be an object');
}
