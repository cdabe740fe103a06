// Tiny packs for the tests of this domain: valid as they stand, small enough to read.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Pack } from '../../packs/pack.types.js';
import { trustedKey, type TrustedKey } from '../../packs/signing.js';

export function tinyPack(id = 'tiny', version = 1, checkName = 'svc'): Pack {
  const check = `${id}.${checkName}`;
  return {
    id,
    version,
    title: `Tiny ${id}`,
    matches: [{ alerts: ['Tiny*'], labels: { env: 'prod' } }],
    checks: [
      {
        id: check,
        title: 'Is the unit up',
        connector: 'ssh',
        call: { op: 'systemd_status', args: { unit: '{service}' } },
        timeout_s: 5,
        values: {
          state: { path: 'units[name={service}].active_state' },
          failed: { path: 'units[*].failed|count' },
        },
        findings: [
          {
            id: 'down',
            when: [{ value: 'state', op: 'ne', than: 'active' }],
            says: '{service} is down',
          },
          {
            id: 'up',
            when: [{ value: 'state', op: 'eq', than: 'active' }],
            says: '{service} is up',
          },
        ],
      },
    ],
    causes: [
      {
        id: 'service_down',
        title: '{service} is down',
        proves: [`${check}.down`],
        supports: [],
        refutes: [`${check}.up`],
        fixes: ['restart'],
      },
    ],
    fixes: [
      {
        id: 'restart',
        title: 'Restart {service}',
        risk: 'low',
        connector: 'ssh',
        kind: 'fix',
        dry_run: { op: 'dry_run', args: { command: 'restart {service}' } },
        action: { op: 'gate', args: { command: 'restart {service}' } },
        verify: {
          expect: [`${check}.up`],
          expect_absent: [`${check}.down`],
          within_s: 30,
          alert_ends_within_s: 0,
        },
        take_back: null,
      },
    ],
  };
}

export function newKey(name = 'test key'): { privateKey: KeyObject; trusted: TrustedKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  return { privateKey, trusted: trustedKey(name, pem) };
}

/** A JSON copy of `doc` with the field at the dotted path set, or removed when undefined. */
export function withField(doc: unknown, path: string, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as unknown;
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let at = copy as Record<string, unknown>;
  for (const k of keys) at = at[k] as Record<string, unknown>;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}
