// The jira_service_management kind: resolved work items of a service project counted by JQL,
// read-only.
//
// Cloud: POST /rest/api/3/search/approximate-count {jql} answers {count} (the count-only
// search Atlassian documents; a POST only because the JQL travels in the body). Data
// Center: GET /rest/api/2/search?jql=…&maxResults=0 answers `total` without any issue.
// The JQL is `project = "KEY" AND resolved >= "yyyy/MM/dd HH:mm" AND resolved < …`; Jira
// reads those times in the account's time zone, so the window's edges may move by its offset.
// Health: GET /rest/api/{3|2}/myself, who the credential signs in as.
import type { ConnectorKind, ResolvedSettings } from '../kind.js';
import {
  countOf,
  createJsonApi,
  headerSafe,
  historyClient,
  HistoryApiError,
  pick,
  RESOLVED_COUNT,
  type ResolvedCount,
  type Window,
} from './history-api.js';
import { readSecret, readString } from './settings.js';

const PRODUCT = 'Jira Service Management';
const DEPLOYMENTS = ['cloud', 'data_center'] as const;

/** A JQL date-time in UTC: "2026/11/29 05:39". */
const jqlTime = (d: Date): string =>
  d.toISOString().slice(0, 16).replace('T', ' ').replace(/-/g, '/');

export function jsmJql(project: string, w: Window, extra: string | undefined): string {
  const q = `project = "${project}" AND resolved >= "${jqlTime(w.since)}" AND resolved < "${jqlTime(w.until)}"`;
  return extra === undefined ? q : `${q} AND (${extra})`;
}

function createJsmClient(settings: ResolvedSettings) {
  const deployment = readString(settings, 'deployment') ?? 'cloud';
  if (!(DEPLOYMENTS as readonly string[]).includes(deployment))
    throw new Error(`setting deployment must be one of ${DEPLOYMENTS.join(', ')}`);
  const cloud = deployment === 'cloud';
  const token = readSecret(settings, 'api_token');
  if (token === undefined) throw new Error('setting api_token is required');
  headerSafe(token.reveal(), 'api_token');
  const email = readString(settings, 'email');
  if (cloud && email === undefined)
    throw new Error('setting email is required on cloud (the account the API token belongs to)');
  const project = readString(settings, 'project');
  if (project === undefined) throw new Error('setting project is required');
  if (!/^[A-Za-z][A-Za-z0-9_]{0,99}$/.test(project))
    throw new Error('setting project must be a project key such as ITSM');
  const extra = readString(settings, 'jql');
  const api = createJsonApi(settings, {
    product: PRODUCT,
    credential: cloud ? 'email and api_token' : 'api_token',
    headers: () => ({
      authorization: cloud
        ? `Basic ${Buffer.from(`${email ?? ''}:${token.reveal()}`, 'utf8').toString('base64')}`
        : `Bearer ${token.reveal()}`,
    }),
  });
  const version = cloud ? '3' : '2';

  return historyClient(
    'jira_service_management',
    async (signal) => {
      const me = await api.json(`/rest/api/${version}/myself`, null, signal);
      const name = pick(me, 'displayName');
      if (typeof name !== 'string')
        throw new HistoryApiError(`${PRODUCT} at ${api.origin} answered without a user`, 200);
      return `${PRODUCT} at ${api.origin}: signed in as ${name}`;
    },
    async (window, signal): Promise<ResolvedCount> => {
      const jql = jsmJql(project, window, extra);
      if (cloud) {
        const body = await api.json('/rest/api/3/search/approximate-count', null, signal, { jql });
        return {
          count: countOf(pick(body, 'count'), PRODUCT, 'count'),
          detail: `POST /rest/api/3/search/approximate-count, project ${project}`,
        };
      }
      const q = new URLSearchParams({ jql, maxResults: '0', fields: 'key' });
      const body = await api.json('/rest/api/2/search', q, signal);
      return {
        count: countOf(pick(body, 'total'), PRODUCT, 'total'),
        detail: `GET /rest/api/2/search maxResults=0, project ${project}`,
      };
    },
  );
}

export const jiraServiceManagementKind: ConnectorKind = {
  kind: 'jira_service_management',
  title: 'Jira Service Management',
  description:
    'Counts resolved work items of a Jira Service Management project for lookback (read-only: a JQL count).',
  capabilities: ['history'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The site: https://<site>.atlassian.net, or your Data Center base URL.',
    },
    {
      name: 'deployment',
      type: 'string',
      required: false,
      default: 'cloud',
      description: `${DEPLOYMENTS.join(' or ')}: cloud signs in with email and API token, data_center with a personal access token.`,
    },
    {
      name: 'email',
      type: 'string',
      required: false,
      description: 'Cloud: the Atlassian account the API token belongs to.',
    },
    {
      name: 'api_token',
      type: 'secret',
      required: true,
      description:
        'Cloud: an API token (id.atlassian.com → Security → API tokens). Data Center: a personal access token.',
    },
    {
      name: 'project',
      type: 'string',
      required: true,
      description: 'The service project key whose resolved work items are counted, e.g. ITSM.',
    },
    {
      name: 'jql',
      type: 'string',
      required: false,
      description: 'JQL added to the count, e.g. issuetype = Incident; none when empty.',
    },
  ],
  operations: [RESOLVED_COUNT],
  create: createJsmClient,
};
