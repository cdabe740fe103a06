import type { Writer } from '../db/writer.js';
import { EventRefused, type LedgerService } from '../ledger/index.js';
import { InvalidInputError } from '../shared/errors.js';
import { ingestedEvents } from './events.events.js';
import { INGEST_PREFIXES, type IngestEventBody } from './events.schemas.js';

const TYPE_SHAPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

interface Deps {
  readonly ledger: LedgerService;
  readonly writer: Writer;
  /** Types the service writes itself (projections apply them): never from outside. */
  readonly reserved: (type: string) => boolean;
}

export function createEventsService({ ledger, writer, reserved }: Deps) {
  return {
    /** Append an event from a component or SIEM; answers after its commit. */
    async ingest(body: IngestEventBody) {
      if (!INGEST_PREFIXES.some((p) => body.type.startsWith(p))) {
        throw new InvalidInputError(
          'invalid_input',
          `type must start with one of ${INGEST_PREFIXES.join(', ')}`,
          { field: 'type' },
        );
      }
      if (!TYPE_SHAPE.test(body.type)) {
        throw new InvalidInputError(
          'invalid_input',
          'type must be dotted lower-case words, e.g. human.deploy',
          { field: 'type' },
        );
      }
      // Every type another domain writes is the service's own word: a projection applies it,
      // or the service reads it back (a posted system.stopped would pass a crash for a clean
      // stop). Only this domain's catalogue, and types no domain declares, come from outside.
      const ownType = Object.hasOwn(ingestedEvents, body.type);
      if (reserved(body.type) || (!ownType && ledger.events.has(body.type))) {
        throw new InvalidInputError(
          'invalid_input',
          `type ${body.type} is written by the service itself and cannot be posted`,
          { field: 'type' },
        );
      }
      const input = {
        type: body.type,
        actor: body.actor,
        data: body.data ?? {},
        reason: body.reason ?? null,
        trace_id: body.trace_id ?? null,
      };
      // A type the service reads (this domain's catalogue: human.deploy, human.action) must
      // match its schema; any other is the sender's record, stored as sent, as before.
      try {
        const event = await writer.transact(() =>
          ownType ? ledger.append(input) : ledger.appendIngested(input),
        );
        return { seq: event.seq, ts: event.ts, type: event.type, trace_id: event.trace_id };
      } catch (err) {
        if (!(err instanceof EventRefused)) throw err;
        const field = err.path === null || err.path === '' ? 'data' : `data.${err.path}`;
        throw new InvalidInputError('invalid_input', err.message, { field });
      }
    },
  };
}
export type EventsService = ReturnType<typeof createEventsService>;
