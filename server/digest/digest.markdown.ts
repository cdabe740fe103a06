// The digest as Markdown: what a manager reads, in the order they ask it.
import type { DigestFigures } from './digest.js';

const seconds = (s: number | null): string => {
  if (s === null) return '—';
  if (s < 60) return `${String(s)} s`;
  if (s < 3600) return `${String(Math.round(s / 60))} min`;
  return `${(s / 3600).toFixed(1)} h`;
};

const episodes = (n: number): string => `${String(n)} episode${n === 1 ? '' : 's'}`;

const RESULT_WORDS: Record<string, string> = {
  resolved: 'resolved by the service',
  restored: 'restored (a change taken back)',
  handed_over: 'handed over to a person',
  linked: 'explained by another incident',
  cleared: 'nothing wrong',
  shadow: 'shadow mode (nothing done)',
  other: 'left unresolved',
};

export function digestMarkdown(d: DigestFigures): string {
  const span = d.days === 1 ? d.last_day : `${d.first_day} to ${d.last_day}`;
  const lines: string[] = [
    `# Digest ${span}${d.partial ? ' (so far)' : ''}`,
    '',
    '## Incidents',
    '',
    `${String(d.incidents.opened)} opened, ${String(d.incidents.ended)} ended.`,
  ];
  if (d.incidents.by_service.length > 0) {
    lines.push('', '| Service | Opened | Ended |', '|---|---|---|');
    for (const s of d.incidents.by_service)
      lines.push(`| ${s.service} | ${String(s.opened)} | ${String(s.ended)} |`);
  }
  lines.push(
    '',
    '## What the service did',
    '',
    `${String(d.episodes.ended)} episodes ended: ${String(d.service.diagnosed.proven)} with a proven cause, ${String(d.service.diagnosed.linked)} linked to one elsewhere, ${String(d.service.diagnosed.other)} without a proven cause. ${String(d.service.acted)} with an action run.`,
  );
  const results = Object.entries(d.service.results).sort((a, b) => b[1] - a[1]);
  if (results.length > 0) {
    lines.push('');
    for (const [r, n] of results) lines.push(`- ${String(n)} ${RESULT_WORDS[r] ?? r}`);
  }
  lines.push(
    '',
    '## Times',
    '',
    `Time to handover: median ${seconds(d.times.handover.median_s)}, 90th percentile ${seconds(d.times.handover.p90_s)} (${episodes(d.times.handover.n)}).`,
    `Time to restore: median ${seconds(d.times.restore.median_s)}, 90th percentile ${seconds(d.times.restore.p90_s)} (${episodes(d.times.restore.n)}).`,
    '',
    '## Waiting on people now',
    '',
    d.approvals_waiting === 0
      ? 'No approval is waiting.'
      : `${String(d.approvals_waiting)} approval${d.approvals_waiting === 1 ? ' is' : 's are'} waiting.`,
  );
  if (d.shadow.episodes > 0) {
    lines.push(
      '',
      '## Shadow mode: what it would have done, and what people did',
      '',
      `${String(d.shadow.episodes)} shadow episodes: the team did the same in ${String(d.shadow.team_agreed)}, something else in ${String(d.shadow.team_did_other)}, and ${String(d.shadow.not_judged)} are not judged yet.`,
      '',
      '| Episode | Service | Would have | Team |',
      '|---|---|---|---|',
      ...d.shadow.examples.map(
        (e) => `| ${e.episode_id} | ${e.service} | ${e.would} | ${e.team} |`,
      ),
    );
  }
  lines.push(
    '',
    '## Labels',
    '',
    d.labels.labels === 0
      ? 'No diagnosis was labelled.'
      : `${String(d.labels.labels)} diagnoses labelled: ${String(d.labels.correct)} right, ${String(d.labels.wrong)} wrong.`,
    d.labels.demoted.length === 0
      ? 'No cause is demoted now.'
      : `Demoted now (held at suspected until their labels recover): ${d.labels.demoted.join(', ')}.`,
    '',
    '## Audit log',
    '',
    d.ledger.ok
      ? `The ledger verifies through seq ${String(d.ledger.head_seq)} (checked ${d.ledger.verified_at}).`
      : `THE LEDGER DOES NOT VERIFY: ${d.ledger.failure ?? 'unknown failure'} (checked ${d.ledger.verified_at}).`,
    '',
  );
  return lines.join('\n');
}
