// Autonomy, fix mode and the global halt (docs/approvals.md): the wire shapes (the server's
// own types, server/autonomy/autonomy.schemas.ts) and the calls. The halt button in the top
// bar uses these, so this file stays small: it is part of the first load.
import type {
  AutonomyLevel,
  AutonomySet,
  AutonomyView,
  FixMode,
  FixModeSet,
  Halted,
  HaltState,
  Requested,
} from '../../../../server/autonomy/autonomy.schemas.js';
import type { ApprovalRequest } from '../approvals/index.js';
import { call, request } from '../../shared/api.js';

export type { AutonomyLevel, AutonomyView, FixMode, Halted };

/** 200: changed at once (lowered, or unchanged); 202: a raise waiting for approvers. */
export type SetAnswer<T> = { applied: T } | { requested: ApprovalRequest };

async function setOrRequest<T>(path: string, body: unknown): Promise<SetAnswer<T>> {
  const res = await request<T & Partial<Requested>>('POST', path, body);
  if (res.status === 202 && res.body.request !== undefined) return { requested: res.body.request };
  return { applied: res.body };
}

export const autonomyApi = {
  get: () => call<AutonomyView>('GET', '/v1/autonomy'),
  set: (service: string, level: AutonomyLevel) =>
    setOrRequest<AutonomySet>('/v1/autonomy', { service, level }),
  fixMode: (mode: FixMode) => setOrRequest<FixModeSet>('/v1/fix-mode', { mode }),
  halt: (reason: string) => call<HaltState>('POST', '/v1/halt', { reason: reason.trim() }),
  resume: () => call<HaltState>('POST', '/v1/resume', {}),
};
