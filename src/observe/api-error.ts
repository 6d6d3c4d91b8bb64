import { describeError } from '../chain/errors.js';
import { sanitize } from './sanitize.js';

/**
 * What a failed model request tells `api_request_error` beyond its type and message (README,
 * Observing): read from the error itself, whichever client threw it. Fields the error does not
 * carry are left out, not guessed — except `retryable`, which a known HTTP status decides when
 * the error does not say (408, 409, 429 and 5xx are worth another try, as the AI SDK decides).
 */
export interface ApiErrorFields {
  status_code?: number;
  retry_count?: number;
  max_retries?: number;
  retryable?: boolean;
  reason?: string;
}

type Fields = Record<string, unknown>;

/**
 * The `error` field, `{ type, message }`, of whatever a model client or a tool threw. Never throws: the
 * value is the host's to rethrow, and a telemetry failure must not take its place. An Error's
 * `name` and `message` are each read once, guarded (either may be a getter that throws, the
 * error a proxy); what cannot be read is `Error` and `describeError`'s wording.
 */
export function thrownErrorOf(error: unknown): { type: string; message: string } {
  let isError: boolean;
  try {
    isError = error instanceof Error;
  } catch {
    return { type: 'Error', message: describeError(error) };
  }
  if (!isError) return { type: 'Error', message: plainText(error) };
  return {
    type: textField(error as Error, 'name') ?? 'Error',
    message: textField(error as Error, 'message') ?? describeError(error),
  };
}

function textField(error: Error, field: 'name' | 'message'): string | undefined {
  try {
    const value = error[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A thrown value that is not an Error, as text (a thrown string is its own message). */
function plainText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return describeError(value);
  }
}

/**
 * Read: `statusCode` or `status` (or `response.status`); `isRetryable` or `retryable`;
 * `retryCount`/`retry_count`, `maxRetries`/`max_retries`; `reason`. An error that gave up after
 * several attempts (the AI SDK's `RetryError`: `reason` and `errors`, one per attempt) counts its
 * attempts after the first as retries and takes status and retryability from its last error.
 */
export function apiErrorFields(error: unknown): ApiErrorFields {
  try {
    return read(error);
  } catch {
    // An error whose getters throw tells nothing more; the request's failure is still reported.
    return {};
  }
}

function read(error: unknown): ApiErrorFields {
  if (!isObject(error)) return {};
  const attempts = Array.isArray(error.errors) ? error.errors : undefined;
  const last = attempts ? (error.lastError ?? attempts.at(-1)) : undefined;
  const cause = isObject(last) ? last : error;
  const status = statusOf(cause) ?? statusOf(error);
  const retryable =
    bool(cause.isRetryable) ??
    bool(cause.retryable) ??
    bool(error.retryable) ??
    (status === undefined ? undefined : retryableStatus(status));
  // Text from the error, bounded and redacted as every payload string is.
  const reason = typeof error.reason === 'string' ? (sanitize(error.reason) as string) : undefined;
  const retryCount =
    count(error.retryCount) ??
    count(error.retry_count) ??
    (attempts && attempts.length > 0 ? attempts.length - 1 : undefined);
  const maxRetries =
    count(error.maxRetries) ??
    count(error.max_retries) ??
    // A client that stopped because it ran out of retries made as many as it was allowed.
    (reason === 'maxRetriesExceeded' && retryCount !== undefined ? retryCount : undefined);
  return {
    ...(status === undefined ? {} : { status_code: status }),
    ...(retryCount === undefined ? {} : { retry_count: retryCount }),
    ...(maxRetries === undefined ? {} : { max_retries: maxRetries }),
    ...(retryable === undefined ? {} : { retryable }),
    ...(reason === undefined ? {} : { reason }),
  };
}

function statusOf(error: Fields): number | undefined {
  const response = isObject(error.response) ? error.response : {};
  for (const value of [error.statusCode, error.status, error.status_code, response.status]) {
    const status = typeof value === 'string' ? Number(value) : value;
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status < 600)
      return status;
  }
  return undefined;
}

function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function isObject(value: unknown): value is Fields {
  return value !== null && typeof value === 'object';
}

function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
