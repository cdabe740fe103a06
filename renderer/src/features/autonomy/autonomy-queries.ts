// Autonomy, fix mode and the global halt (docs/approvals.md): the wire shapes,
// the query key and the calls. The halt button in the top bar uses these, so this file stays
// small: it is part of the first load.
import type { ApprovalRequest } from '../approvals/index.js';
import { call, request } from '../../shared/api.js';

export type AutonomyLevel = 'off' | 'shadow' | 'L1' | 'L2';
export type FixMode = 'advise' | 'draft';

export interface Halted {
  reason: string;
  by: string;
  at: string;
}

export interface AutonomyView {
  default: AutonomyLevel;
  services: { service: string; level: AutonomyLevel }[];
  halted: Halted | null;
  raise_quorum: number;
  /** Why raising cannot be approved now (too few approvers), or null. */
  raise_impossible: string | null;
  fix_mode: FixMode;
  drafted_quorum: number;
  /** Pending autonomy and fix_mode requests. */
  requests: ApprovalRequest[];
}

export const LEVELS: readonly AutonomyLevel[] = ['off', 'shadow', 'L1', 'L2'];

export const LEVEL_MEANING: Record<AutonomyLevel, string> = {
  off: 'Off — takes the alert in, investigates nothing',
  shadow: 'Shadow — diagnoses and records what it would do; never acts',
  L1: 'L1 — diagnoses, then asks before every action',
  L2: 'L2 — acts without asking on fixes the policy lists as safe for the service; asks for the rest',
};

export const FIX_MODES: readonly FixMode[] = ['advise', 'draft'];

export const FIX_MODE_MEANING: Record<FixMode, string> = {
  advise: 'Advise — restore fixes (reverting a deploy) are named as advice and handed over',
  draft: 'Draft — restore fixes are drafted as approval requests needing two approvers',
};

export const autonomyKey = ['autonomy'] as const;

/** 200: changed at once (lowered, or unchanged); 202: a raise waiting for approvers. */
export type SetAnswer<T> = { applied: T } | { requested: ApprovalRequest };

async function setOrRequest<T>(path: string, body: unknown): Promise<SetAnswer<T>> {
  const res = await request<T & { request?: ApprovalRequest }>('POST', path, body);
  if (res.status === 202 && res.body.request !== undefined) return { requested: res.body.request };
  return { applied: res.body };
}

export const autonomyApi = {
  get: () => call<AutonomyView>('GET', '/v1/autonomy'),
  set: (service: string, level: AutonomyLevel) =>
    setOrRequest<{ service: string; level: AutonomyLevel }>('/v1/autonomy', { service, level }),
  fixMode: (mode: FixMode) => setOrRequest<{ mode: FixMode }>('/v1/fix-mode', { mode }),
  halt: (reason: string) => call<{ halted: Halted }>('POST', '/v1/halt', { reason: reason.trim() }),
  resume: () => call<unknown>('POST', '/v1/resume', {}),
};
