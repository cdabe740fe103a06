// The alert-intake check: ok after a recent alert, a warning (with a hint) when none came for a
// day, none ever came, or ingestion is off.
import { describe, expect, it } from 'vitest';
import { INTAKE_QUIET_WARN_MS, intakeCheck } from './core-checks.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const run = (last: string | null, on = true) =>
  intakeCheck(
    () => last,
    on,
    () => NOW,
  ).run();

describe('intake check', () => {
  it('is ok when an alert arrived within the day', async () => {
    expect(await run('2026-11-22T11:50:00Z')).toMatchObject({
      status: 'ok',
      detail: 'the last alert arrived 10 min ago',
    });
  });

  it('warns, with a hint, after a day of silence', async () => {
    const r = await run(new Date(NOW - INTAKE_QUIET_WARN_MS - 60_000).toISOString());
    expect(r.status).toBe('warn');
    expect(r.detail).toMatch(/^the last alert arrived 24 h ago/);
    expect(r.hint).not.toBe('');
  });

  it('warns when no alert ever came, and when ingestion is off', async () => {
    expect(await run(null)).toMatchObject({ status: 'warn', detail: 'no alert has arrived yet' });
    expect(await run('2026-11-22T11:50:00Z', false)).toMatchObject({
      status: 'warn',
      detail: 'ingestion is off: no SVC_INGEST_TOKEN is configured',
    });
  });
});
