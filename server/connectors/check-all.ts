// A health check of every configured connector at once, each within its own timeout: what
// the doctor, `svc-core connectors check` and `preflight --deep` report.
import type { ConnectorsService } from './connectors.service.js';

export interface ConnectionHealth {
  readonly name: string;
  readonly kind: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly duration_ms: number;
}

export async function checkAll(connectors: ConnectorsService): Promise<ConnectionHealth[]> {
  const all = connectors.list().connectors;
  return Promise.all(
    all.map(async (c): Promise<ConnectionHealth> => {
      if (c.problem !== null) {
        return { name: c.name, kind: c.kind, ok: false, detail: c.problem, duration_ms: 0 };
      }
      try {
        const h = await connectors.health(c.name);
        return {
          name: c.name,
          kind: c.kind,
          ok: h.ok,
          detail: h.detail,
          duration_ms: h.duration_ms,
        };
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        return { name: c.name, kind: c.kind, ok: false, detail, duration_ms: 0 };
      }
    }),
  );
}
