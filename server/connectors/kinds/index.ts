// Every connector kind this build knows, in catalogue order.
import type { ConnectorKind } from '../kind.js';
import { alertmanagerKind } from './alertmanager.js';
import { gitKind } from './git.js';
import { httpKind } from './http.js';
import { postgresqlKind } from './postgresql.js';
import { prometheusKind } from './prometheus.js';
import { sshKind } from './ssh.js';

export { alertmanagerKind } from './alertmanager.js';
export { gitKind } from './git.js';
export { httpKind } from './http.js';
export { postgresqlKind } from './postgresql.js';
export { prometheusKind } from './prometheus.js';
export { sshKind } from './ssh.js';

export const KINDS: readonly ConnectorKind[] = [
  prometheusKind,
  alertmanagerKind,
  httpKind,
  gitKind,
  sshKind,
  postgresqlKind,
];
