// The audit feature as other folders see it: they import from here, never its files.
export { AuditPage } from './audit.js';
export { auditKeys } from './queries.js';
