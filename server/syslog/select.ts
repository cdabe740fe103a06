// Which ledger events go to syslog (SVC_SYSLOG_EVENTS) and at which severity.
import { BOOTSTRAP } from '../access/index.js';
import { SYSTEM_HALT, SYSTEM_RESUME } from '../autonomy/index.js';

/** Event types counted as "security": type prefixes, and three exact system events. */
export const SECURITY_PREFIXES: readonly string[] = Object.freeze([
  'auth.',
  'access.',
  'licence.',
  'keychain.',
  'config.',
  'ledger.',
  SYSTEM_HALT,
  SYSTEM_RESUME,
  BOOTSTRAP,
]);

/**
 * Whether an event type is selected by SVC_SYSLOG_EVENTS: `security` stands for
 * SECURITY_PREFIXES, `all` for everything, any other entry is a plain type prefix
 * (`licence.` selects `licence.activated`; the documented form ends with a dot).
 */
export function isSelected(type: string, events: readonly string[]): boolean {
  return events.some((entry) => {
    if (entry === 'all') return true;
    if (entry === 'security') return isSecurity(type);
    return entry !== '' && type.startsWith(entry);
  });
}

export function isSecurity(type: string): boolean {
  return SECURITY_PREFIXES.some((prefix) => type.startsWith(prefix));
}

export const SEVERITY = { warning: 4, notice: 5, info: 6 } as const;

/**
 * warning for failures and refusals (a failed sign-in, a denied access, a tamper alarm),
 * notice for the other security events, info for anything else that `all` or a prefix
 * selects.
 */
export function severityOf(type: string): number {
  if (/fail|denied|tamper|refused/i.test(type)) return SEVERITY.warning;
  return isSecurity(type) ? SEVERITY.notice : SEVERITY.info;
}
