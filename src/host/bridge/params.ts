import { RPC, RpcError } from './json-rpc.js';

export type Params = Record<string, unknown>;

/**
 * Readers for a request's params. A param of the wrong shape is the host's mistake and is answered
 * with -32602 naming it, before anything runs; an optional param given with the wrong type is such
 * a mistake too, not something to drop silently.
 */
export function paramsObject(raw: unknown): Params {
  if (raw === undefined) return {};
  if (!isPlainObject(raw)) throw invalid('params must be an object');
  return raw;
}

export function text(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalid(`${key} must be a string`);
  return value;
}

export function nonEmptyText(params: Params, key: string): string {
  const value = text(params, key);
  if (value.length === 0) throw invalid(`${key} must not be empty`);
  return value;
}

export function optionalText(params: Params, key: string): string | undefined {
  return params[key] === undefined ? undefined : text(params, key);
}

export function optionalNumber(params: Params, key: string): number | undefined {
  const value = params[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw invalid(`${key} must be a number`);
  return value;
}

/** `{ [key]: value }` for a value that was given, `{}` otherwise: absent stays absent. */
export function given<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: T });
}

export function object(params: Params, key: string): Params {
  const value = params[key];
  if (!isPlainObject(value)) throw invalid(`${key} must be an object`);
  return value;
}

export function arrayOfObjects(params: Params, key: string): Params[] {
  const value = params[key];
  if (!Array.isArray(value)) throw invalid(`${key} must be an array`);
  value.forEach((item, index) => {
    if (!isPlainObject(item)) throw invalid(`${key}[${index}] must be an object`);
  });
  return value as Params[];
}

function isPlainObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function invalid(message: string): RpcError {
  return new RpcError(RPC.invalidParams, message);
}
