// The doctor as an operator reads it at 3 am: failing first, grouped by area, each check that
// is not ok with a link to the page that mends it, and a re-run that does not wait for the
// server's 15-second cache.
import { statusKeys } from './queries.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DoctorCheck, type DoctorReport, statusApi } from './api.js';
import { ErrorNote, Link, Time } from '../../shared/parts.js';

const GLYPH = { ok: '✓', warn: '!', fail: '✗' } as const;
const RANK = { fail: 0, warn: 1, ok: 2 } as const;

/** The console page that mends a check, by area (and check, where an area spans pages). */
export function pageFor(
  c: Pick<DoctorCheck, 'area' | 'check'>,
): { to: string; title: string } | null {
  const byCheck: Record<string, { to: string; title: string }> = {
    'Diagnosis/accuracy': { to: '/learning', title: 'Learning' },
    'Approvals/escalation': { to: '/policy', title: 'Policy' },
    'Policy/raising autonomy': { to: '/autonomy', title: 'Autonomy' },
    'Core/Investigations': { to: '/episodes', title: 'Episodes' },
    'Core/Alert intake': { to: '/connections', title: 'Connections' },
  };
  const byArea: Record<string, { to: string; title: string }> = {
    Connections: { to: '/connections', title: 'Connections' },
    Licence: { to: '/licence', title: 'Licence' },
    Keychain: { to: '/keychain', title: 'Keychain' },
    Approvals: { to: '/approvals', title: 'Approvals' },
    Policy: { to: '/policy', title: 'Policy' },
    Audit: { to: '/audit', title: 'Audit' },
  };
  return byCheck[`${c.area}/${c.check}`] ?? byArea[c.area] ?? null;
}

/** Areas worst first (then by name), and within each the checks worst first. */
export function groupChecks(
  checks: readonly DoctorCheck[],
): { area: string; checks: DoctorCheck[] }[] {
  const areas = new Map<string, DoctorCheck[]>();
  for (const c of checks) areas.set(c.area, [...(areas.get(c.area) ?? []), c]);
  const worst = (cs: readonly DoctorCheck[]) => Math.min(...cs.map((c) => RANK[c.status]));
  return [...areas.entries()]
    .map(([area, cs]) => ({
      area,
      checks: [...cs].sort((a, b) => RANK[a.status] - RANK[b.status]),
    }))
    .sort((a, b) => worst(a.checks) - worst(b.checks) || a.area.localeCompare(b.area));
}

export function DoctorSection() {
  const client = useQueryClient();
  const doctor = useQuery({ queryKey: statusKeys.doctor, queryFn: () => statusApi.doctor(false) });
  const rerun = useMutation({
    mutationFn: () => statusApi.doctor(true),
    onSuccess: (report) => client.setQueryData(statusKeys.doctor, report),
  });
  const report: DoctorReport | undefined = doctor.data;
  const counts = { fail: 0, warn: 0, ok: 0 };
  for (const c of report?.checks ?? []) counts[c.status] += 1;
  return (
    <section aria-labelledby="doctor-heading">
      <h2 id="doctor-heading">Doctor</h2>
      <ErrorNote error={doctor.error ?? rerun.error} />
      {report && (
        <p className="doctor-summary">
          <span className={`badge ${report.status}`}>
            {GLYPH[report.status]} {report.status}
          </span>{' '}
          {counts.fail} failing, {counts.warn} warning, {counts.ok} ok · checked{' '}
          <Time iso={report.checked_at} />
          {report.cached && ' (cached)'}{' '}
          <button type="button" onClick={() => rerun.mutate()} disabled={rerun.isPending}>
            {rerun.isPending ? 'Checking…' : 'Re-run'}
          </button>
        </p>
      )}
      {report &&
        groupChecks(report.checks).map((g) => (
          <table className="table doctor-area" aria-label={`doctor checks: ${g.area}`} key={g.area}>
            <caption>{g.area}</caption>
            <colgroup>
              <col className="doctor-status" />
              <col className="doctor-check" />
              <col />
            </colgroup>
            <tbody>
              {g.checks.map((c) => {
                const fix = c.status === 'ok' ? null : pageFor(c);
                return (
                  <tr key={c.check} className={`check-${c.status}`}>
                    <td>
                      <span className={`badge ${c.status}`}>
                        {GLYPH[c.status]} {c.status}
                      </span>
                    </td>
                    <th scope="row">{c.check}</th>
                    <td>
                      {c.detail}
                      {c.hint !== '' && <div className="muted">{c.hint}</div>}
                      {fix && (
                        <div>
                          <Link to={fix.to}>Mend on the {fix.title} page</Link>
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ))}
    </section>
  );
}
