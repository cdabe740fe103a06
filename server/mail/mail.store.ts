// The one mail settings document in SQLite (references only, never a secret value).
import type { Database } from 'better-sqlite3';
import { canonicalJson } from '../shared/canonical-json.js';
import type { MailSettings } from './mail.settings.js';

export function createMailStore(db: Database) {
  const read = db.prepare<[], { document: string; updated_at: string }>(
    'SELECT document, updated_at FROM mail_settings WHERE id = 1',
  );
  const write = db.prepare<[string, string]>(
    `INSERT INTO mail_settings (id, document, updated_at) VALUES (1, ?, ?)
     ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at`,
  );
  return {
    get(): { settings: MailSettings; updated_at: string } | null {
      const row = read.get();
      return row === undefined
        ? null
        : { settings: JSON.parse(row.document) as MailSettings, updated_at: row.updated_at };
    },
    put(settings: MailSettings, at: string): void {
      write.run(canonicalJson(settings), at);
    },
  };
}
export type MailStore = ReturnType<typeof createMailStore>;
