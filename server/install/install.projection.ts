// Projection of system.installed / system.started events into install_state.
import type { Database } from 'better-sqlite3';
import type { Projection } from '../ledger/index.js';

export interface InstallState {
  readonly installed_at: string;
  readonly instance: string;
  readonly key_fingerprint: string;
  readonly starts: number;
  readonly last_start_at: string | null;
  readonly last_version: string | null;
}

export function createInstallStore(db: Database) {
  const get = db.prepare<[], InstallState>(
    `SELECT installed_at, instance, key_fingerprint, starts, last_start_at, last_version FROM install_state WHERE id = 1`,
  );
  const insert = db.prepare<[string, string, string]>(
    `INSERT INTO install_state (id, installed_at, instance, key_fingerprint) VALUES (1, ?, ?, ?)`,
  );
  const started = db.prepare<[string, string, string]>(
    `UPDATE install_state SET starts = starts + 1, last_start_at = ?, last_version = ?, instance = ? WHERE id = 1`,
  );
  return {
    get: (): InstallState | null => get.get() ?? null,
    projection: {
      name: 'install',
      tables: ['install_state'],
      types: ['system.installed', 'system.started'],
      apply(e) {
        if (e.type === 'system.installed') {
          insert.run(e.ts, String(e.data['instance']), String(e.data['key_fingerprint']));
        } else if (e.type === 'system.started') {
          started.run(e.ts, String(e.data['version']), String(e.data['instance']));
        }
      },
    } satisfies Projection,
  };
}
export type InstallStore = ReturnType<typeof createInstallStore>;
