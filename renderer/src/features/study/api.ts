// The wire shapes of GET /v1/study and its actions (the server's own types,
// server/study/study.schemas.ts) and the calls.
import type { StartBody, StudyStart, StudyView } from '../../../../server/study/study.schemas.js';
import { call } from '../../shared/api.js';

/** GET /v1/study: the study running, the last one, and what it found per service. */
export type StudyBody = StudyView;
export type ServiceStudied = StudyView['last'][number];
export type Baseline = ServiceStudied['baseline'][number];
export type Obstacle = ServiceStudied['obstacles'][number];
export type Relation = ServiceStudied['relations'][number];
export type CauseReading = ServiceStudied['causes'][number];

export const studyApi = {
  get: () => call<StudyView>('GET', '/v1/study'),
  start: (minutes: number) =>
    call<StudyStart>('POST', '/v1/study', { minutes } satisfies StartBody),
  stop: () => call<StudyView>('POST', '/v1/study/stop', {}),
};
