// Every connector kind this build knows, in catalogue order.
import type { ConnectorKind } from '../kind.js';
import { alertmanagerKind } from './alertmanager.js';
import { gitKind } from './git.js';
import { httpKind } from './http.js';
import { ldapKind } from './ldap.js';
import { mailKind } from './mail.js';
import { postgresqlKind } from './postgresql.js';
import { prometheusKind } from './prometheus.js';
import { slackKind } from './slack.js';
import { sshKind } from './ssh.js';
import { teamsKind } from './teams.js';
import { webhookKind } from './webhook.js';

export { alertmanagerKind } from './alertmanager.js';
export { gitKind } from './git.js';
export { httpKind } from './http.js';
export { ldapKind } from './ldap.js';
export { mailKind } from './mail.js';
export { postgresqlKind } from './postgresql.js';
export { prometheusKind } from './prometheus.js';
export { slackKind } from './slack.js';
export { sshKind } from './ssh.js';
export { teamsKind } from './teams.js';
export { webhookKind } from './webhook.js';

export const KINDS: readonly ConnectorKind[] = [
  prometheusKind,
  alertmanagerKind,
  httpKind,
  gitKind,
  sshKind,
  postgresqlKind,
  ldapKind,
  mailKind,
  slackKind,
  teamsKind,
  webhookKind,
];
