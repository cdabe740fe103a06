// Readable names of the kinds of connection that keep history.
export const KIND_TITLES: Readonly<Record<string, string>> = {
  pagerduty: 'PagerDuty',
  opsgenie: 'Opsgenie',
  jira_service_management: 'Jira Service Management',
  servicenow: 'ServiceNow',
};
export const kindTitle = (kind: string): string => KIND_TITLES[kind] ?? kind;
