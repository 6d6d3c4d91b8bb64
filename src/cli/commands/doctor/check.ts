import type { DiagnosticCode } from '../../../extensions/types.js';

/**
 * One line of `hermes extensions doctor`: what was checked, how it stands, and what to do.
 * `error` is a problem (exit 1), `warning` may be one, `info` is worth knowing and no problem.
 */
export interface Check {
  level: 'ok' | 'info' | 'warning' | 'error';
  subject: string;
  message: string;
  /** The diagnostic the check reports, when it reports one. */
  code?: DiagnosticCode;
  fix?: string;
}
