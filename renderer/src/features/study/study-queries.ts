// The wire shapes of GET /v1/study (server/study/study.schemas.ts), its calls and query key.
import { call } from '../../shared/api.js';

export const studyKeys = { all: ['study'] as const };

export interface Baseline {
  reading: string;
  query: string;
  n: number;
  min: number;
  max: number;
  mean: number;
  p5: number;
  p50: number;
  p95: number;
}

export interface Obstacle {
  what: string;
  reason: string;
  fix: string;
}

export interface Relation {
  from: string;
  to: string;
  lag: number;
  strength: number;
  score: number;
  readings: string;
  method: 'lagged_correlation' | 'causal_service';
}

export interface CauseReading {
  cause: string;
  packs: string[];
  checks: number;
  readable: number;
  unreadable: { check: string; why: string }[];
}

export interface ServiceStudied {
  service: string;
  study_id: string;
  at: string;
  complete: boolean;
  window: { from: string; to: string; step_s: number };
  baseline: Baseline[];
  obstacles: Obstacle[];
  relations: Relation[];
  causes: CauseReading[];
}

export interface StudyBody {
  running: {
    study_id: string;
    step: 'baseline' | 'relations' | 'causes';
    service: string | null;
    cause: string | null;
    done: number;
    of: number;
    ends_at: string;
    stopping: boolean;
  } | null;
  study: {
    study_id: string;
    status: string;
    minutes: number;
    started_at: string;
    ends_at: string;
    ended_at: string | null;
    why: string | null;
    by: string;
    relations_method: string | null;
    relations_note: string | null;
  } | null;
  last: ServiceStudied[];
}

export const studyApi = {
  get: () => call<StudyBody>('GET', '/v1/study'),
  start: (minutes: number) =>
    call<{ study_id: string; minutes: number; ends_at: string }>('POST', '/v1/study', { minutes }),
  stop: () => call<StudyBody>('POST', '/v1/study/stop', {}),
};

/** A reading's value as a person reads it: bytes in MiB or GiB, shares as %, else 3 figures. */
export function shown(reading: string, v: number): string {
  if (reading === 'memory' || reading === 'host_memory_available') {
    const mib = v / 1_048_576;
    return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(0)} MiB`;
  }
  if (reading === 'host_cpu_busy' || reading === 'up') return `${String(Math.round(v * 100))}%`;
  return String(Number(v.toPrecision(3)));
}
