import type { DiagnosticCode } from '../../../extensions/types.js';

/** One line of `hermes extensions doctor`: what was checked, how it stands, and what to do. */
export interface Check {
  level: 'ok' | 'warning' | 'error';
  subject: string;
  message: string;
  /** The diagnostic the check reports, when it reports one. */
  code?: DiagnosticCode;
  fix?: string;
}
