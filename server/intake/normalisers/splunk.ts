// Splunk Enterprise / Cloud alert action "Webhook": a fixed body naming the saved search, the
// run (`sid`), its app and owner, a results link and the FIRST result row only. Splunk has no
// resolve and no severity. NORMALISATION.md §2 (splunk), §3.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
} from '../signal.js';
import { httpLink, putScalar, putScalarOrList } from './labels.js';
import { first, hashOf, isObject, obj, signal, str, time } from './read.js';

const SOURCE = 'splunk';

function detect(body: unknown): boolean {
  return (
    isObject(body) &&
    typeof body['search_name'] === 'string' &&
    typeof body['sid'] === 'string' &&
    typeof body['results_link'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Splunk webhook body is a JSON object');
  const name = str(b['search_name']);
  if (name === undefined) throw new NotReadableError('search_name is missing');
  if (b['result'] !== undefined && b['result'] !== null && !isObject(b['result'])) {
    throw new NotReadableError('result is not an object');
  }
  const row = obj(b['result']) ?? {};
  const host = str(row['host']);
  const labels: Record<string, string> = {};
  putScalar(labels, 'search_name', name);
  putScalar(labels, 'sid', b['sid']);
  putScalar(labels, 'owner', b['owner']);
  // The result row: its own fields, not Splunk's internal `_…` ones (`_raw` is the summary)
  // nor the date_* parts of `_time`.
  for (const [k, v] of Object.entries(row).slice(0, 200)) {
    if (k.startsWith('_') || k.startsWith('date_')) continue;
    putScalarOrList(labels, `result.${k}`, v);
  }
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: 'firing',
        severity: 'unknown',
        service: str(b['app']) ?? null,
        resource: host ?? null,
        // `sid` changes with every run of the search.
        fingerprint: hashOf(SOURCE, name, host),
        started_at: time(row['_time']) ?? ctx.receivedAt,
        summary: first(row['_raw'], name) ?? name,
        labels,
        link: httpLink(b['results_link']),
      }),
    ],
  };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
