// The connector kinds this build knows, and the catalogue view of them.
import type { ConnectorKind, SettingSpec } from './kind.js';
import {
  MAX_IN_FLIGHT_MAX,
  TIMEOUT_DEFAULT_S,
  TIMEOUT_MAX_S,
  type Catalogue,
  type KindView,
  type SettingView,
} from './connectors.schemas.js';

/** Settings every connector has, beside its kind's settings (top level of the document). */
export const FRAMEWORK_SETTINGS: readonly SettingSpec[] = [
  {
    name: 'max_in_flight',
    type: 'integer',
    required: false,
    description: 'calls in flight to this connector at once; SVC_CONNECTOR_CONCURRENCY when absent',
    minimum: 1,
    maximum: MAX_IN_FLIGHT_MAX,
  },
  {
    name: 'timeout_s',
    type: 'integer',
    required: false,
    description: 'every call to this connector is abandoned after this many seconds',
    default: TIMEOUT_DEFAULT_S,
    minimum: 1,
    maximum: TIMEOUT_MAX_S,
  },
];

function settingView(s: SettingSpec): SettingView {
  return {
    name: s.name,
    type: s.type,
    required: s.required,
    description: s.description,
    ...(s.default !== undefined && { default: s.default }),
    ...(s.minimum !== undefined && { minimum: s.minimum }),
    ...(s.maximum !== undefined && { maximum: s.maximum }),
    secret: s.type === 'secret',
  };
}

export interface Registry {
  get(kind: string): ConnectorKind | undefined;
  kinds(): readonly string[];
  catalogue(): Catalogue;
}

export function createRegistry(kinds: readonly ConnectorKind[]): Registry {
  const byKind = new Map<string, ConnectorKind>();
  for (const k of kinds) {
    if (byKind.has(k.kind)) throw new Error(`connector kind ${k.kind} registered twice`);
    const names = new Set<string>();
    for (const s of k.settings) {
      if (names.has(s.name)) throw new Error(`connector kind ${k.kind}: setting ${s.name} twice`);
      names.add(s.name);
    }
    byKind.set(k.kind, k);
  }
  const views: KindView[] = [...byKind.values()]
    .sort((a, b) => a.kind.localeCompare(b.kind))
    .map((k) => ({
      kind: k.kind,
      title: k.title,
      description: k.description,
      capabilities: [...k.capabilities],
      operations: [...k.operations],
      settings: k.settings.map(settingView),
    }));
  const catalogue: Catalogue = { kinds: views, framework: FRAMEWORK_SETTINGS.map(settingView) };
  return {
    get: (kind) => byKind.get(kind),
    kinds: () => [...byKind.keys()].sort(),
    catalogue: () => catalogue,
  };
}
