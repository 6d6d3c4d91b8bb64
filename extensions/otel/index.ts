import { defineExtension } from 'hermes-extensions';
import { config, type OtelOptions } from './config.js';
import { assertOtelInstalled } from './packages.js';

export type { OtelOptions } from './config.js';

// OpenTelemetry is an optional dependency of hermes-extensions (packages.ts): checked before any
// module that imports it is loaded, so an install without it fails to load (a load failure like
// any other, which `on_load_error` rules on) with what is missing and the command that installs
// it, rather than with Node's "Cannot find module" for whichever import came first.
assertOtelInstalled(import.meta.url);

/**
 * OpenTelemetry for the agent, from the observer events, with the span tree, names and
 * attributes of the Hermes OTel mapping (extensions/README.md and this extension's README.md):
 * `session.{kind}` (one `runConversation`; the kind is the platform) → `llm.{model}` (the turn)
 * → `api.{model}` (each provider request) → `tool.{name}` (each tool call, under the request that
 * asked for it), `approval.{pattern_key}` (the wait for a person's answer to an ask, beside
 * the gated call), and `subagent.{role}` (a delegation, with the subagent's requests under it). Token usage (both conventions), finish reason, API errors, tool outcome and hook
 * decisions become attributes and span events; the session span ends with the turn summary.
 * Status ERROR marks API failures, tools that failed and subagents that failed or were
 * cancelled — a blocked or cancelled tool is a decision, not a fault. Counters and histograms count tool calls, tokens, API errors, retries,
 * sessions, approvals, subagents and durations.
 */
export function createOtelExtension(options: OtelOptions = {}) {
  return defineExtension({
    name: 'otel',
    version: '1.0.0',
    description:
      'OpenTelemetry traces and metrics of every turn, request and tool call (OTLP/HTTP)',
    configSchema: config,
    async setup(hermes) {
      // Imported only now: a static import would be resolved before the check above runs.
      const { startRecording } = await import('./record.js');
      startRecording(hermes, options);
    },
  });
}

export default createOtelExtension();
