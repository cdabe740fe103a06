// Status and doctor: mode, licence, set-up steps with their hints, and the doctor (doctor.tsx).
import { useStatus } from './queries.js';
import { ErrorNote, Link } from '../../shared/parts.js';
import { DoctorSection } from './doctor.js';
import './status.css';

export function StatusPage() {
  const status = useStatus();
  const s = status.data;
  return (
    <main className="page">
      <h1>Status</h1>
      <ErrorNote error={status.error} />
      {s && (
        <dl className="facts">
          <dt>Instance</dt>
          <dd>{s.instance}</dd>
          <dt>Version</dt>
          <dd>{s.version}</dd>
          <dt>Mode</dt>
          <dd>{s.mode}</dd>
          <dt>Licence</dt>
          <dd>
            {s.licence
              ? `${s.licence.tier}, ${s.licence.valid ? 'valid' : 'not valid'}, ${s.licence.days_left === null ? 'perpetual' : `${String(s.licence.days_left)} days left`}`
              : 'none'}{' '}
            <Link to="/licence">Licence</Link>
          </dd>
          <dt>Ledger</dt>
          <dd>
            seq {s.ledger.seq.toLocaleString('en')}, {s.ledger.segments} sealed segments
          </dd>
        </dl>
      )}
      {s && (
        <>
          <h2>
            Set-up{' '}
            <span className="count">
              {s.setup.done} of {s.setup.of}
            </span>
          </h2>
          <ol className="steps">
            {s.setup.steps.map((step) => (
              <li key={step.id} className={step.done ? 'ok' : 'todo'}>
                {step.done ? '✓' : '○'} <strong>{step.title}</strong>
                {!step.done && step.hint !== '' && <span className="muted"> — {step.hint}</span>}
                {!step.done && step.id === 'licence' && (
                  <>
                    {' '}
                    <Link to="/licence">Install a licence</Link>
                  </>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
      <DoctorSection />
    </main>
  );
}
