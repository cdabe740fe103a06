// Out-of-band edits of a database file, as someone with sqlite3 in hand would make them:
// tests that prove a corruption is found (ledger-verify, rebuild --check) need a row changed
// behind the service's back. No domain's port should offer that, so this helper takes the
// table as a value, like rebuild's replay, and drops the table's update guards first.
import Database from 'better-sqlite3';

/** Set columns of the rows that match `where` (every row without it) in `table` of `file`. */
export function tamper(
  file: string,
  table: string,
  set: Readonly<Record<string, string | number>>,
  where: Readonly<Record<string, string | number>> = {},
): void {
  const db = new Database(file);
  try {
    const guards = db
      .prepare<[string], { name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND sql LIKE '%BEFORE UPDATE%'`,
      )
      .all(table);
    for (const g of guards) db.exec(`DROP TRIGGER "${g.name}"`);
    const cols = Object.keys(set).map((c) => `"${c}" = @set_${c}`);
    const conds = Object.keys(where).map((c) => `"${c}" = @where_${c}`);
    const params = {
      ...Object.fromEntries(Object.entries(set).map(([c, v]) => [`set_${c}`, v])),
      ...Object.fromEntries(Object.entries(where).map(([c, v]) => [`where_${c}`, v])),
    };
    db.prepare(
      `UPDATE "${table}" SET ${cols.join(', ')}${conds.length > 0 ? ` WHERE ${conds.join(' AND ')}` : ''}`,
    ).run(params);
  } finally {
    db.close();
  }
}

/**
 * Make the FTS5 index `index` of `file` lose track of one row: a delete of it with no
 * values, which the index takes on trust (its table still holds the row).
 */
export function tamperIndex(file: string, index: string, rowid: number): void {
  const db = new Database(file);
  try {
    db.prepare(`INSERT INTO "${index}" ("${index}", rowid) VALUES ('delete', ?)`).run(rowid);
  } finally {
    db.close();
  }
}
