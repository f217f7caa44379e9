// clients/conformance.json, the scenarios every client passes.
import { readFileSync } from 'node:fs';
import { CONFORMANCE } from './common.js';

export const SCENARIOS = JSON.parse(readFileSync(CONFORMANCE, 'utf8')).scenarios;
export const V2_SKIP = 'needs the redesigned service (issue 29)';

/** A logger that keeps every record, for scenarios that read the client's log. */
export function capturingLogger() {
  const records = [];
  const keep = (level) => (message, fields = {}) => records.push({ level, message, fields });
  return {
    records,
    logger: {
      debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error'),
    },
  };
}
