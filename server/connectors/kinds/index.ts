// Every connector kind this build knows, in catalogue order.
import type { ConnectorKind } from '../kind.js';
import { httpKind } from './http.js';
import { prometheusKind } from './prometheus.js';

export { httpKind } from './http.js';
export { prometheusKind } from './prometheus.js';

export const KINDS: readonly ConnectorKind[] = [prometheusKind, httpKind];
