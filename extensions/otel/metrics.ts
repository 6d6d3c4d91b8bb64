import type { Meter } from '@opentelemetry/api';

/** The counters and histograms of the Hermes OTel mapping. */
export function createInstruments(meter: Meter) {
  return {
    toolCalls: meter.createCounter('hermes.tool.calls', { description: 'Tool calls by outcome' }),
    toolDuration: meter.createHistogram('hermes.tool.duration', { unit: 'ms' }),
    apiDuration: meter.createHistogram('hermes.api.duration', { unit: 'ms' }),
    inputTokens: meter.createCounter('hermes.tokens.input'),
    outputTokens: meter.createCounter('hermes.tokens.output'),
    decisions: meter.createCounter('hermes.hook.decisions'),
    apiErrors: meter.createCounter('hermes.api.error.count', {
      description: 'Failed provider requests',
    }),
    retries: meter.createCounter('hermes.retry.count', {
      description: 'Provider requests that failed and may be tried again',
    }),
    sessions: meter.createCounter('hermes.sessions', {
      description: 'Turns by kind and final status',
    }),
    approvals: meter.createCounter('hermes.approval.count', {
      description: 'Answers to asks by choice and pattern key',
    }),
    approvalDuration: meter.createHistogram('hermes.approval.duration', {
      unit: 'ms',
      description: 'How long asks waited for their answer',
    }),
    subagents: meter.createCounter('hermes.subagent.count', {
      description: 'Subagents by role and how they ended',
    }),
    subagentDuration: meter.createHistogram('hermes.subagent.duration', {
      unit: 'ms',
      description: 'How long subagents ran, by role',
    }),
  };
}

export type Instruments = ReturnType<typeof createInstruments>;
