// The diagnosis engine as one small facade: match the packs to the episode, plan and run
// their checks through the connectors, judge the causes, and look up (and fill in) fixes.
// Everything it reads comes through its deps, so the orchestrator, the command line and the
// tests build it the same way.
import type { Pack, PackFix } from '../packs/index.js';
import {
  diagnose,
  type ClosedEpisode,
  type OpenEpisode,
  type PromotedPattern,
} from './diagnose.js';
import { matchPacks } from './match.js';
import {
  connectorsReaching,
  dependenciesOf,
  planChecks,
  type ConnectorLike,
  type EstateLike,
  type PlannedCheck,
} from './plan.js';
import { runChecks, type CallFn } from './run-checks.js';
import { escaperFor, fillCall, lookupIn, queryLanguageOfKind } from '../packs/index.js';
import type { Finding, Hypothesis } from './types.js';
import { createReadings, settled, type Investigator } from './readings.js';

export interface EngineDeps {
  /** the loaded packs, read at every investigation */
  readonly packs: () => readonly Pack[];
  /** the estate: services (hosts, origins) and links (`from` depends on `to`) */
  readonly estate: () => EstateLike;
  /** the configured connectors with their (listed) settings */
  readonly connectors: () => readonly ConnectorLike[];
  /** one connector operation within `timeoutMs` (the connectors runtime) */
  readonly call: CallFn;
  readonly clock: { now(): number; nowIso(): string };
  /** seconds for a check that sets no timeout_s (default 15) */
  readonly defaultTimeoutS?: number;
  /** the model investigator, asked when the packs' checks settle nothing; null: none */
  readonly investigator?: () => Investigator | null;
  /** why labels keep a cause from proven on its own evidence; absent or null: nothing does */
  readonly demoted?: (cause: string) => string | null;
  /** the promoted learned pattern a proven cause repeats; absent or null: none */
  readonly promoted?: PromotedPattern;
  /** records that an episode moved to a step (the live view shows it); absent: not recorded */
  readonly step?: (episodeId: string, step: 'models') => Promise<void>;
}

export interface InvestigateContext {
  readonly episode_id: string;
  readonly service: string;
  /** the episode's alert names */
  readonly alerts: readonly string[];
  /** the labels of its first signal */
  readonly labels: Readonly<Record<string, string>>;
  /** closed episodes (for recurrence); only the last 7 days count */
  readonly recent_closed?: readonly ClosedEpisode[];
  /** open episodes (for a linked cause's episode) */
  readonly open_episodes?: readonly OpenEpisode[];
}

/** A call with its templates filled. */
export interface FilledCall {
  readonly op: string;
  readonly args: Readonly<Record<string, string | number | boolean>>;
}

/** A fix ready to hand to the actions domain, or the reason it is not runnable. */
export interface PreparedFix {
  readonly pack: string;
  readonly fix: PackFix;
  /** the service it acts on */
  readonly service: string;
  /** the connector it goes through (the first of its kind that reaches the service) */
  readonly connector: string | null;
  readonly action: FilledCall;
  readonly dry_run: FilledCall | null;
  readonly take_back: FilledCall | null;
  /** every template filled and a connector found */
  readonly runnable: boolean;
  /** placeholders with no value */
  readonly missing: readonly string[];
  /** why it is not runnable; null when it is */
  readonly why: string | null;
}

export interface FixLookup {
  get(pack: string, id: string): PackFix | null;
  /** the fix filled in for a service, from this investigation's variables and values */
  prepare(pack: string, id: string, service: string): PreparedFix | null;
  /** the hypothesis's fixes, in its order of preference */
  forHypothesis(h: Hypothesis): PreparedFix[];
}

export interface Investigation {
  readonly episode_id: string;
  readonly service: string;
  /** ids of the packs that matched */
  readonly packs: string[];
  readonly findings: Finding[];
  /** best first */
  readonly hypotheses: Hypothesis[];
  readonly fixes: FixLookup;
  /** per service: `<check id>.<value name>` → value */
  readonly values: Record<string, Record<string, unknown>>;
}

export interface RecheckContext {
  readonly service: string;
  readonly alerts?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly episode_id?: string;
}

const HOUR_MS = 3_600_000;

export interface VariableInput {
  readonly service: string;
  readonly estate: EstateLike;
  readonly alerts: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly episodeId: string;
  readonly nowMs: number;
}

/**
 * The variables templates may name: `service`, `host` (its first host), `alertname`,
 * `label.<name>`, `episode_id`, `now` and `hour_ago` (ISO-8601), and `dependencies` (the
 * services it depends on, a list: in a PromQL `=~"{dependencies}"` it is the alternation
 * `app|postgresql` of their names, escaped; no value when it depends on none, and then
 * `no_dependencies` is true if the estate knows the service).
 */
export function variablesFor(v: VariableInput): Record<string, unknown> {
  const known = v.estate.services.find((s) => s.name === v.service);
  const deps = dependenciesOf(v.service, v.estate.links);
  const out: Record<string, unknown> = {
    service: v.service,
    episode_id: v.episodeId,
    now: new Date(v.nowMs).toISOString(),
    hour_ago: new Date(v.nowMs - HOUR_MS).toISOString(),
  };
  const host = known?.hosts[0];
  if (host !== undefined) out['host'] = host;
  const alertname = v.alerts[0] ?? v.labels['alertname'];
  if (alertname !== undefined) out['alertname'] = alertname;
  if (deps.length > 0) out['dependencies'] = deps;
  // Known to depend on nothing: its dependency checks have nothing to read. Unknown to the
  // estate (discovery has not run): they stay unreadable, and nothing they refute is proven.
  else if (known !== undefined) out['no_dependencies'] = true;
  for (const [k, value] of Object.entries(v.labels)) out[`label.${k}`] = value;
  return out;
}

export function createEngine(deps: EngineDeps) {
  function variablesOf(ctx: RecheckContext, estate: EstateLike) {
    const cache = new Map<string, Record<string, unknown>>();
    const nowMs = deps.clock.now();
    return (service: string): Record<string, unknown> => {
      let v = cache.get(service);
      if (v === undefined) {
        v = variablesFor({
          service,
          estate,
          alerts: ctx.alerts ?? [],
          labels: ctx.labels ?? {},
          episodeId: ctx.episode_id ?? '',
          nowMs,
        });
        cache.set(service, v);
      }
      return v;
    };
  }

  /** Runs planned checks through the connectors the caller listed for this investigation. */
  async function run(
    planned: readonly PlannedCheck[],
    variables: (s: string) => Record<string, unknown>,
    connectors: readonly ConnectorLike[],
  ) {
    // Values from alerts go into a query language quoted for it (query-escape.ts).
    const kinds = new Map(connectors.map((c) => [c.name, c.kind]));
    const escapeFor = (name: string) => {
      const language = queryLanguageOfKind(kinds.get(name) ?? '');
      return language === null ? undefined : escaperFor(language);
    };
    return runChecks(planned, {
      call: deps.call,
      escapeFor,
      now: () => deps.clock.nowIso(),
      variables,
      ...(deps.defaultTimeoutS !== undefined && { defaultTimeoutS: deps.defaultTimeoutS }),
    });
  }

  function fixLookup(
    packs: readonly Pack[],
    estate: EstateLike,
    connectors: readonly ConnectorLike[],
    variables: (s: string) => Record<string, unknown>,
    values: Record<string, Record<string, unknown>>,
  ): FixLookup {
    const get = (pack: string, id: string): PackFix | null =>
      packs.find((p) => p.id === pack)?.fixes.find((f) => f.id === id) ?? null;
    const prepare = (pack: string, id: string, service: string): PreparedFix | null => {
      const fix = get(pack, id);
      if (fix === null) return null;
      const lookup = lookupIn(variables(service), values[service] ?? {});
      const action = fillCall(fix.action, lookup);
      const dry = fix.dry_run === null ? null : fillCall(fix.dry_run, lookup);
      const back = fix.take_back === null ? null : fillCall(fix.take_back, lookup);
      const missing = [
        ...new Set([...action.missing, ...(dry?.missing ?? []), ...(back?.missing ?? [])]),
      ];
      const connector = connectorsReaching(fix.connector, service, estate, connectors)[0] ?? null;
      const why =
        connector === null
          ? `no ${fix.connector} connector reaches ${service}`
          : missing.length > 0
            ? `no value for ${missing.map((m) => `{${m}}`).join(', ')}`
            : null;
      return {
        pack,
        fix,
        service,
        connector,
        action: action.call,
        dry_run: dry?.call ?? null,
        take_back: back?.call ?? null,
        runnable: why === null,
        missing,
        why,
      };
    };
    return {
      get,
      prepare,
      forHypothesis: (h) =>
        h.fixes
          .map((id) => prepare(h.pack, id, h.service))
          .filter((f): f is PreparedFix => f !== null),
    };
  }

  /** Reads the named checks again for one service (no dependencies), e.g. to verify a fix. */
  async function recheck(checkIds: readonly string[], ctx: RecheckContext): Promise<Finding[]> {
    const packs = deps.packs();
    const estate = deps.estate();
    const connectors = deps.connectors();
    const only = packs.map((p) => ({
      ...p,
      checks: p.checks
        .filter((c) => checkIds.includes(c.id))
        .map((c) => ({ ...c, scope: 'service' as const })),
    }));
    const planned = planChecks({
      packs: only,
      matched: only.map((p) => p.id),
      service: ctx.service,
      estate,
      connectors,
    });
    return (await run(planned, variablesOf(ctx, estate), connectors)).findings;
  }

  return {
    async investigate(ctx: InvestigateContext): Promise<Investigation> {
      const packs = deps.packs();
      const estate = deps.estate();
      const connectors = deps.connectors();
      const kind = estate.services.find((s) => s.name === ctx.service)?.kind ?? null;
      const matched = matchPacks(packs, {
        alerts: ctx.alerts,
        labels: ctx.labels,
        service: ctx.service,
        serviceKind: kind,
      }).map((p) => p.id);
      const variables = variablesOf(ctx, estate);
      const planned = planChecks({ packs, matched, service: ctx.service, estate, connectors });
      const first = await run(planned, variables, connectors);
      const judge = (
        findings: readonly Finding[],
        inPlay: readonly string[],
        values: Record<string, Record<string, unknown>>,
      ): Hypothesis[] =>
        diagnose(packs, findings, {
          service: ctx.service,
          alerts: ctx.alerts,
          dependencies: dependenciesOf(ctx.service, estate.links),
          matched: inPlay,
          recent: ctx.recent_closed ?? [],
          open: ctx.open_episodes ?? [],
          now: deps.clock.nowIso(),
          variables: (s) => ({ ...variables(s), ...(values[s] ?? {}) }),
          ...(deps.demoted !== undefined && { demoted: deps.demoted }),
          ...(deps.promoted !== undefined && { promoted: deps.promoted }),
        });
      let reading = { findings: first.findings, values: first.values, matched };
      let hypotheses = judge(reading.findings, matched, reading.values);
      const investigator = deps.investigator?.() ?? null;
      if (investigator !== null && !settled(hypotheses)) {
        const readings = createReadings({
          packs,
          estate,
          connectors,
          service: ctx.service,
          matched,
          first,
          // What the first reading found fills a proposed check's placeholders too.
          run: (more) =>
            run(more, (s) => ({ ...variables(s), ...(first.values[s] ?? {}) }), connectors),
          judge,
        });
        // The investigator may take up to SVC_MODEL_TIMEOUT_S: the live view says so.
        await deps.step?.(ctx.episode_id, 'models');
        await investigator.extend(
          { episode_id: ctx.episode_id, service: ctx.service, alerts: ctx.alerts },
          readings.tools,
        );
        reading = readings.result();
        hypotheses = judge(reading.findings, reading.matched, reading.values);
      }
      const { findings, values } = reading;
      return {
        episode_id: ctx.episode_id,
        service: ctx.service,
        packs: reading.matched,
        findings,
        hypotheses,
        fixes: fixLookup(packs, estate, connectors, variables, values),
        values,
      };
    },

    recheck,
  };
}

export type Engine = ReturnType<typeof createEngine>;
