// Grafana unified alerting webhook (version "1", orgId): Alertmanager's group shape with
// Grafana's extra keys, read by the shared parser (alert-groups.ts).
import type { Normaliser } from '../signal.js';
import { isAlertGroup, isGrafanaGroup, normaliseGroup } from './alert-groups.js';

export const normaliser: Normaliser = {
  source: 'grafana',
  detect: (body) => isAlertGroup(body) && isGrafanaGroup(body),
  normalise: (body, ctx) => normaliseGroup('grafana', body, ctx),
};
