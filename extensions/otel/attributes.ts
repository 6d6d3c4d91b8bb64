import type { ObserverPayload } from 'hermes-extensions';

type Attributes = Record<string, string | number | boolean>;

export const text = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);
export const number = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * An HTTP status, as a number or as the text of one (a host across a bridge may send `"429"`);
 * anything else, or a number outside 100–599, is none.
 */
export function statusCode(value: unknown): number | undefined {
  const code = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof code === 'number' && Number.isInteger(code) && code >= 100 && code < 600
    ? code
    : undefined;
}

/** A request's token counts, whichever way the provider spelled them. */
export function tokensOf(usage: unknown): { input?: number; output?: number } {
  const u = (usage ?? {}) as Record<string, unknown>;
  const input = number(u.input_tokens ?? u.prompt_tokens ?? u.inputTokens);
  const output = number(u.output_tokens ?? u.completion_tokens ?? u.outputTokens);
  return {
    ...(input === undefined ? {} : { input }),
    ...(output === undefined ? {} : { output }),
  };
}

/** Token counts in both conventions: OpenTelemetry's `gen_ai.usage.*`, OpenInference's `llm.token_count.*`. */
export function tokenAttributes(tokens: { input?: number; output?: number }): Attributes {
  const attributes: Attributes = {};
  if (tokens.input !== undefined) {
    attributes['gen_ai.usage.input_tokens'] = tokens.input;
    attributes['llm.token_count.prompt'] = tokens.input;
  }
  if (tokens.output !== undefined) {
    attributes['gen_ai.usage.output_tokens'] = tokens.output;
    attributes['llm.token_count.completion'] = tokens.output;
  }
  if (tokens.input !== undefined || tokens.output !== undefined)
    attributes['llm.token_count.total'] = (tokens.input ?? 0) + (tokens.output ?? 0);
  return attributes;
}

/** `llm.invocation_parameters`: the request's parameters the host reported, as JSON. */
export function invocationParameters(p: ObserverPayload): string {
  const max = number(p.max_tokens);
  return JSON.stringify(max === undefined ? {} : { max_tokens: max });
}

/** What an `api_request_error` tells, as the attributes of the span it closes. */
export function errorAttributes(p: ObserverPayload): Attributes {
  const error = errorOf(p);
  const attributes: Attributes = { 'error.type': error.type };
  const status = statusCode(p.status_code);
  if (status !== undefined) {
    attributes['http.response.status_code'] = status;
    attributes['gen_ai.response.status_code'] = status;
  }
  const retries = number(p.retry_count);
  if (retries !== undefined) attributes['hermes.retry.count'] = retries;
  const max = number(p.max_retries);
  if (max !== undefined) attributes['hermes.max_retries'] = max;
  if (typeof p.retryable === 'boolean') attributes['hermes.retryable'] = p.retryable;
  const duration = number(p.api_duration);
  if (duration !== undefined) attributes['llm.response.duration_ms'] = duration;
  return attributes;
}

export function errorOf(p: ObserverPayload): { type: string; message: string } {
  const error = (p.error ?? {}) as { type?: unknown; message?: unknown };
  const reason = typeof p.reason === 'string' ? p.reason : '';
  return {
    type: typeof error.type === 'string' && error.type !== '' ? error.type : 'Error',
    message: typeof error.message === 'string' && error.message !== '' ? error.message : reason,
  };
}

/** The error counter's `status_class`: `4xx`, `5xx`, … or `none` when no HTTP status came back. */
export function statusClass(status: unknown): string {
  const code = statusCode(status);
  return code === undefined ? 'none' : `${Math.floor(code / 100)}xx`;
}

/** The error counter's `retryable`: `unknown` when the host could not tell. */
export function retryableLabel(retryable: unknown): string {
  return typeof retryable === 'boolean' ? String(retryable) : 'unknown';
}

/**
 * What handlers in shadow mode decided on a `hook_decision` (docs/chain-semantics.md, Shadow mode):
 * `hermes.hook.would_block` when one would have blocked the call, and the shadowed extensions that
 * decided, `hermes.extension.shadowed`. None when no handler was shadowed.
 */
export function shadowAttributes(p: ObserverPayload): Attributes {
  if (!Array.isArray(p.shadow) || p.shadow.length === 0) return {};
  const names = p.shadow.map((d) => String((d as { extension?: unknown } | null)?.extension ?? ''));
  return {
    'hermes.hook.would_block': p.would_block === true,
    'hermes.extension.shadowed': [...new Set(names)].join(','),
  };
}
