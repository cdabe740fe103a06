// What changed in the hour before the episode (deploys, restarts and other reported actions,
// watched files and settings a connector saw): its own section near the top of the episode
// page, one row each with when, where (service and host), what, who, and a link to where it
// came from (the audit entry of a reported event, the connector that saw a snapshot change).
import { type Episode } from './api.js';
import { Link, Time } from '../../shared/parts.js';

/** One entry of "what changed" (server/investigate/changes.ts); type/actor/host are newer. */
export interface ChangeEntry {
  kind: 'snapshot' | 'event';
  at: string;
  /** a watched file's change reads `<connector>: <path> changed: <masked changed lines>` */
  what: string;
  source: string;
  service: string | null;
  seq: number;
  type?: string;
  actor?: string | null;
  host?: string | null;
}

const VERBS: Record<string, string> = { 'human.deploy': 'deploy', 'human.action': 'action' };

/** The sentence without what the columns already say (`<type> by <actor>`, `<connector>: `). */
function whatOf(c: ChangeEntry): { verb: string; text: string } {
  if (c.kind === 'snapshot') {
    const prefix = `${c.source}: `;
    // Its text says what changed ("<path> changed: <diff>"): no verb before it.
    return { verb: '', text: c.what.startsWith(prefix) ? c.what.slice(prefix.length) : c.what };
  }
  const type = c.type ?? c.what.split(' ')[0] ?? '';
  const lead = `${type} by ${c.actor ?? c.source}`;
  const rest = c.what.startsWith(lead) ? c.what.slice(lead.length).trim() : c.what;
  return { verb: VERBS[type] ?? type, text: rest };
}

export function Changes({ episode }: { episode: Episode }) {
  const changes = ((episode as { changes?: unknown }).changes ?? []) as ChangeEntry[];
  if (changes.length === 0) return null;
  return (
    <section aria-label="What changed" className="episode-changes">
      <h2>
        What changed <span className="count">in the hour before · {changes.length}</span>
      </h2>
      <div className="table-scroll">
        <table className="table changes" aria-label="changes before the episode">
          <thead>
            <tr>
              <th>When</th>
              <th>Where</th>
              <th>What</th>
              <th>Who</th>
              <th>Source</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => {
              const w = whatOf(c);
              return (
                <tr key={`${c.kind}-${String(c.seq)}`}>
                  <td className="num" data-label="When">
                    <Time iso={c.at} />
                  </td>
                  <td data-label="Where">
                    {c.service ?? <span className="muted">—</span>}
                    {c.host ? <span className="muted"> on {c.host}</span> : null}
                  </td>
                  <td data-label="What">
                    {w.verb && <strong>{w.verb} </strong>}
                    <code className="change-what">{w.text}</code>
                  </td>
                  <td data-label="Who">
                    {c.kind === 'snapshot' ? (
                      <span className="muted">not reported (seen by {c.source})</span>
                    ) : (
                      (c.actor ?? c.source)
                    )}
                  </td>
                  <td data-label="Source">
                    {c.kind === 'snapshot' ? (
                      <Link to="/connections">{c.source}</Link>
                    ) : (
                      <Link to={`/audit?seq=${String(c.seq)}`}>ledger seq {c.seq}</Link>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
