import { z } from 'zod';
import { HOOK_NAMES, type HookName } from '../hooks/index.js';

/**
 * An extension declared in config, with no code of its own (docs/policies.md): an `extensions`
 * section entry with a `kind`. The keys every kind shares say where it runs in the chains, as
 * `hermes.on`'s options do for an extension in code; `mode` is the framework's key for every
 * extension (config/extension-mode.ts) and is read there.
 */
export const DECLARED_KINDS = ['cedar', 'http', 'rego', 'judge'] as const;
export type DeclaredKind = (typeof DECLARED_KINDS)[number];

/** The key that makes an extension section a declaration. */
export const KIND_KEY = 'kind';

const milliseconds = z
  .number({ error: 'must be a number of milliseconds' })
  .int({ error: 'must be a whole number of milliseconds' })
  .positive({ error: 'must be more than 0 ms' });

const names = z.union([z.string(), z.array(z.string())]);

const common = {
  /** The hook points it decides at. Default: `intercept_tool_call`. */
  hooks: z
    .array(z.enum(HOOK_NAMES as [HookName, ...HookName[]]))
    .min(1, { error: 'names no hook' })
    .optional(),
  /** Tool names it is called for (exact names; `intercept_tool_call`, `transform_tool_result`). */
  tools: names.optional(),
  /** A pattern over the event (plain JSON values match equal values), as `when` in code. */
  when: z.record(z.string(), z.unknown()).optional(),
  priority: z.number({ error: 'must be a number' }).optional(),
  /** Default `validate`: a policy decides on the value the host will act on. */
  phase: z.enum(['mutate', 'validate']).optional(),
  timeout_ms: milliseconds.optional(),
  /** What a failure (an engine error, an answer not understood, a timeout) means. */
  on_error: z.enum(['pass', 'block']).optional(),
  before: names.optional(),
  after: names.optional(),
  /** What no decision means: `pass` (default) or `block`. */
  default: z.enum(['pass', 'block']).optional(),
  description: z.string().optional(),
  mode: z.unknown().optional(),
};

/** A decision service reached over HTTP: shared by `http` and `rego`'s server form. */
const remote = {
  /**
   * Request headers whose values come from environment variables, `{ Header: VARIABLE }`: a
   * secret is never written in a config file. Only in the user's own config.
   */
  headers_from_env: z.record(z.string(), z.string()).optional(),
  /** Attempts after the first when the service cannot be reached or answers 5xx. Default 0. */
  retries: z.number().int().min(0).max(5).optional(),
  /** Allow a URL that is neither HTTPS nor loopback. Only in the user's own config. */
  allow_insecure_url: z.boolean().optional(),
};

const url = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

export const cedarDeclarationSchema = z.strictObject({
  kind: z.literal('cedar'),
  ...common,
  /** The `.cedar` policy file, relative to the config file that declares it. */
  policy: z.string({ error: 'must name the .cedar policy file' }),
  /** Entities (Cedar's JSON entity format), relative to the config file. */
  entities: z.string().optional(),
  /** A schema (`.cedarschema` text or Cedar's JSON schema); when given, requests are validated. */
  schema: z.string().optional(),
});

export const httpDeclarationSchema = z.strictObject({
  kind: z.literal('http'),
  ...common,
  ...remote,
  url,
});

export const regoDeclarationSchema = z
  .strictObject({
    kind: z.literal('rego'),
    ...common,
    ...remote,
    /** The OPA server's base URL (`http://127.0.0.1:8181`). */
    server: url.optional(),
    /** A policy compiled to WebAssembly (`opa build -t wasm`'s `policy.wasm`), relative to the config file. */
    bundle: z.string().optional(),
    /** JSON data for the compiled policy (`data.json`), relative to the config file. */
    data: z.string().optional(),
    /**
     * The document to ask for: `POST <server>/v1/data/<path>` (`hermes/decision`); for a bundle,
     * its entrypoint (default: the first one it was built with).
     */
    path: z
      .string()
      .regex(/^[A-Za-z_][\w]*(?:\/[A-Za-z_][\w]*)*$/, {
        error: 'must be a data path such as hermes/decision',
      })
      .optional(),
  })
  .superRefine((value, context) => {
    if ((value.server === undefined) === (value.bundle === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'give either server (an OPA server) or bundle (a .wasm file)',
      });
    }
    if (value.server !== undefined && value.path === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['path'],
        message: 'must name the document to ask the server for',
      });
    }
    if (value.bundle === undefined && value.data !== undefined) {
      context.addIssue({ code: 'custom', path: ['data'], message: 'is for a bundle only' });
    }
  });

export const judgeDeclarationSchema = z
  .strictObject({
    kind: z.literal('judge'),
    ...common,
    ...remote,
    /** An OpenAI-compatible API's base URL: `<endpoint>/chat/completions` is asked. */
    endpoint: url.optional(),
    /** Or an AI SDK provider package (`@ai-sdk/anthropic`), installed beside hermes-extensions. Only in the user's own config. */
    provider: z.string({ error: 'must name an AI SDK provider package' }).optional(),
    /** The provider's export to use: a provider (`anthropic`), or with `provider_options` its factory (`createAnthropic`). */
    provider_export: z.string().optional(),
    /** Options for the provider's factory (`baseURL`, `name`, …). Only in the user's own config. */
    provider_options: z.record(z.string(), z.unknown()).optional(),
    model: z.string({ error: 'must name the model' }),
    /** The environment variable holding the API key (sent as a bearer token). Only in the user's own config. */
    api_key_env: z.string().optional(),
    /** The question, with `{{path}}` placeholders over the input (`{{toolArgs.command}}`, `{{input}}` for all of it). */
    prompt: z.string({ error: 'must be the question the model answers' }),
    /** What `ok: false` means: `block` (default) or `ask` a person. */
    not_ok: z.enum(['block', 'ask']).optional(),
    /** Model requests per session at most (cache hits are free); past it the handler fails. Default 100. */
    budget: z.number().int().positive().optional(),
  })
  .superRefine((value, context) => {
    if ((value.endpoint === undefined) === (value.provider === undefined)) {
      context.addIssue({
        code: 'custom',
        message:
          'give either endpoint (an OpenAI-compatible API) or provider (an AI SDK provider package)',
      });
    }
    for (const key of ['provider_export', 'provider_options'] as const) {
      if (value.provider === undefined && value[key] !== undefined) {
        context.addIssue({ code: 'custom', path: [key], message: 'is for a provider only' });
      }
    }
    for (const key of ['api_key_env', 'headers_from_env'] as const) {
      if (value.provider !== undefined && value[key] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            'is for an endpoint only: a provider reads its own key (its documented environment variable, or provider_options)',
        });
      }
    }
  });

export const declarationSchema = z.discriminatedUnion(
  'kind',
  [cedarDeclarationSchema, httpDeclarationSchema, regoDeclarationSchema, judgeDeclarationSchema],
  { error: `kind must be one of ${DECLARED_KINDS.join(', ')}` },
);

export type Declaration = z.output<typeof declarationSchema>;
export type CedarDeclaration = z.output<typeof cedarDeclarationSchema>;
export type HttpDeclaration = z.output<typeof httpDeclarationSchema>;
export type RegoDeclaration = z.output<typeof regoDeclarationSchema>;
export type JudgeDeclaration = z.output<typeof judgeDeclarationSchema>;
