// Prometheus Alertmanager webhook (version "4"; "3" legacy): a group of alerts, read by the
// parser it shares with Grafana (alert-groups.ts).
import type { Normaliser } from '../signal.js';
import { isAlertGroup, isGrafanaGroup, normaliseGroup } from './alert-groups.js';

export const normaliser: Normaliser = {
  source: 'alertmanager',
  aliases: ['prometheus'],
  detect: (body) => isAlertGroup(body) && !isGrafanaGroup(body),
  normalise: (body, ctx) => normaliseGroup('alertmanager', body, ctx),
};
