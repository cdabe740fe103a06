// Every connector kind this build knows, in catalogue order.
import type { ConnectorKind } from '../kind.js';
import { alertmanagerKind } from './alertmanager.js';
import { gitKind } from './git.js';
import { httpKind } from './http.js';
import { jiraServiceManagementKind } from './jira-service-management.js';
import { ldapKind } from './ldap.js';
import { mailKind } from './mail.js';
import { opsgenieKind } from './opsgenie.js';
import { pagerdutyKind } from './pagerduty.js';
import { postgresqlKind } from './postgresql.js';
import { prometheusKind } from './prometheus.js';
import { servicenowKind } from './servicenow.js';
import { slackKind } from './slack.js';
import { sshKind } from './ssh.js';
import { teamsKind } from './teams.js';
import { webhookKind } from './webhook.js';

export { alertmanagerKind } from './alertmanager.js';
export { gitKind } from './git.js';
export { httpKind } from './http.js';
export { jiraServiceManagementKind } from './jira-service-management.js';
export { ldapKind } from './ldap.js';
export { mailKind } from './mail.js';
export { opsgenieKind } from './opsgenie.js';
export { pagerdutyKind } from './pagerduty.js';
export { postgresqlKind } from './postgresql.js';
export { prometheusKind } from './prometheus.js';
export { servicenowKind } from './servicenow.js';
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
  pagerdutyKind,
  opsgenieKind,
  jiraServiceManagementKind,
  servicenowKind,
];
export { RESOLVED_COUNT, type ResolvedCount } from './history-api.js';
