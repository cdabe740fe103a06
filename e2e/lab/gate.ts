// Each lab host's gate config (build/gate/svc-gate, docs/gate.md): its one unit described
// for a host without systemd, the actions the service may take there, the cache it may
// clear, how it reaches PostgreSQL (terminate_idle), the revert commands, the certificate
// the files the setup check hashes (each its unit's, kept in a store beside the config so
// config_changes can show and restore them) and the names its resolver should always answer.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { UnitFiles } from './layout.js';
import { ROOT } from './processes.js';
import { dirname, join } from 'node:path';

export const GATE = join(ROOT, 'build', 'gate', 'svc-gate');

export interface GateHost {
  readonly conf: string;
  readonly log: string;
  readonly unit: {
    readonly name: string;
    readonly files: UnitFiles;
    readonly ports: readonly number[];
  };
  readonly allow: readonly string[];
  readonly caches?: Readonly<Record<string, string>>;
  /** `pg.psql=`: the command prefix terminate_idle runs psql with */
  readonly psql?: string;
  /** `revert.<name>=`: the command revert <name> <commit> runs */
  readonly reverts?: Readonly<Record<string, string>>;
  readonly certs?: readonly string[];
  readonly files?: readonly string[];
  /** `resolve=`: names the host should always resolve (the resolver check asks them) */
  readonly resolve?: readonly string[];
}

export function gateConfig(h: GateHost): string {
  const u = h.unit;
  return [
    `# svc-gate config for the lab host running ${u.name} (written by the lab)`,
    `log=${h.log}`,
    ...h.allow.map((a) => `allow=${a}`),
    ...Object.entries(h.caches ?? {}).map(([name, dir]) => `cache.${name}=${dir}`),
    ...(h.psql !== undefined ? [`pg.psql=${h.psql}`] : []),
    ...Object.entries(h.reverts ?? {}).map(([name, cmd]) => `revert.${name}=${cmd}`),
    ...(h.certs ?? []).map((c) => `cert=${c}`),
    ...(h.resolve ?? []).map((r) => `resolve=${r}`),
    `store=${join(dirname(h.conf), 'gate-store')}`,
    ...(h.files ?? []).map((f) => `file.${u.name}=${f}`),
    `unit.${u.name}.pidfile=${u.files.pidfile}`,
    `unit.${u.name}.start=${u.files.start}`,
    `unit.${u.name}.stop=${u.files.stop}`,
    ...(u.files.reload !== undefined ? [`unit.${u.name}.reload=${u.files.reload}`] : []),
    `unit.${u.name}.log=${u.files.log}`,
    `unit.${u.name}.ports=${u.ports.join(' ')}`,
    '',
  ].join('\n');
}

export function writeGateConfig(h: GateHost): void {
  writeFileSync(h.conf, gateConfig(h));
  writeFileSync(h.log, '', { flag: 'a' });
}

/**
 * Runs the gate's `setup` once, as a gate in place for a while has: its store then keeps
 * each watched file's version from before any fault, so a fault's edit is a change it can
 * show, whether or not the service's first snapshot ran before the edit.
 */
export function seedGateStore(conf: string): void {
  execFileSync(GATE, [], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      SVC_GATE_CONF: conf,
      SSH_ORIGINAL_COMMAND: 'setup',
    },
    stdio: 'ignore',
    timeout: 30_000,
  });
}
