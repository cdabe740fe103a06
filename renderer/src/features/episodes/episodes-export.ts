// The Episodes table's selected rows as a file (console brief C.3, bulk "export"): CSV for a
// spreadsheet or a report, JSON for a script. The CSV quotes what needs it and defuses cells a
// spreadsheet would run as a formula (OWASP's CSV injection advice): they get a leading '.
import type { EpisodeRow } from './api.js';

export const EXPORT_COLUMNS = [
  'episode_id',
  't_open',
  't_close',
  'severity',
  'service',
  'alerts',
  'result',
  'decision',
  'outcome',
  'confidence',
  'autonomy',
  'action',
  'duration_s',
  'verdict',
  'incident_id',
] as const satisfies readonly (keyof EpisodeRow)[];

type Column = (typeof EXPORT_COLUMNS)[number];

function cell(value: EpisodeRow[Column]): string {
  let text: string;
  if (value === null) text = '';
  else if (Array.isArray(value)) text = value.join('; ');
  else text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line and one line per row, CRLF-ended as RFC 4180 has it. */
export function toCsv(rows: readonly EpisodeRow[]): string {
  const lines = [EXPORT_COLUMNS.join(',')];
  for (const r of rows) lines.push(EXPORT_COLUMNS.map((c) => cell(r[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
