import { describe, expect, it } from 'vitest';
import { anEpisodeRow } from './episode.fixture.js';
import { EXPORT_COLUMNS, toCsv } from './episodes-export.js';

const row = anEpisodeRow;

describe('the ticked rows as CSV', () => {
  it('has a header and one CRLF line per row, empty for null, alerts joined', () => {
    const lines = toCsv([row({ alerts: ['A', 'B'] })]).split('\r\n');
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(lines[1]).toBe(
      'ep-1,2026-11-29T10:00:00.000Z,2026-11-29T10:06:00.000Z,critical,payments,A; B,restored,act,mitigated,proven,L2,verified,360,,',
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
  });

  it('quotes commas, quotes and line breaks, and defuses formulas', () => {
    const line = toCsv([
      row({ service: 'a,b', alerts: ['say "hi"', 'two\nlines'], verdict: '=HYPERLINK("x")' }),
    ]).split('\r\n')[1];
    expect(line).toContain('"a,b"');
    expect(line).toContain('"say ""hi""; two\nlines"');
    expect(line).toContain(`"'=HYPERLINK(""x"")"`);
    const defused = toCsv([row({ service: '@sum', decision: '-1', result: '+x' })]);
    for (const cell of ["'@sum", "'-1", "'+x"]) expect(defused).toContain(`,${cell},`);
  });
});
