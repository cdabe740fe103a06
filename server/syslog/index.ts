// The syslog forwarder: ledger events as RFC 5424 messages to a collector.
export { createSyslogForwarder } from './syslog.js';
export { formatMessage } from './format.js';
