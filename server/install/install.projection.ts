// Projection of system.installed / system.started events into install_state.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { InstallEvents } from './install.events.js';

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
    projection: projectionOf<InstallEvents>({
      name: 'install',
      tables: ['install_state'],
      on: {
        'system.installed': (d, e) => {
          insert.run(e.ts, String(d.instance), String(d.key_fingerprint));
        },
        'system.started': (d, e) => {
          started.run(e.ts, String(d.version), String(d.instance));
        },
      },
    }),
  };
}
export type InstallStore = ReturnType<typeof createInstallStore>;
